# Neural Eikonal Solver: keras-team/keras-io examples/keras_recipes/eikonal.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/keras_recipes/eikonal.py
# commit: a5efa8e71eeaa503b680ef609a67542d4ff0b606
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - another library: tqdm is not installed with the tests: its import and fit's TqdmCallback (a
#   progress bar) are left out; the validation with eikonalfm's finite-difference solver (the
#   source's last three cells, another library) is left out;
# - sizes: the 151 x 151 mesh is 21 x 21, num_train 40000 is 400, epochs 3000 are 5;
#   fit's shuffling is off (shuffle=False);
# - added: fit's history and the predicted traveltimes from the sample source are shown
#

# [cell 1]
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
import numpy as np
import matplotlib.pyplot as plt

# [cell 2]
def build_model(input_scale, velocity_min, velocity_max, num_dim=2):
    # Hyperparameters
    num_layers = 5  # number of hidden layers
    num_units = 50  # number of units on each layer
    kernel_activation = lambda z: tf.math.exp(-(z**2))  # hidden activation
    output_activation = "sigmoid"  # output activation
    kernel_initializer = "he_normal"  # initialization of layers weights

    # Input 1: Source coordinates (start point)
    source_coords_list = [
        layers.Input(shape=(1,), name=f"source_coord_{i}") for i in range(num_dim)
    ]
    source_coords = layers.Concatenate(name="source_coords", axis=-1)(
        source_coords_list
    )

    # Input 2: Receiver coordinates (end point)
    receiver_coords_list = [
        layers.Input(shape=(1,), name=f"receiver_coord_{i}") for i in range(num_dim)
    ]
    receiver_coords = layers.Concatenate(name="receiver_coords", axis=-1)(
        receiver_coords_list
    )

    # Input 3: velocity model at Receiver coordinates
    velocity_at_receiver = layers.Input(shape=(1,), name="velocity_at_receiver")

    # All inputs for solution Traveltime(source, receiver)
    inputs_list = source_coords_list + receiver_coords_list

    # Scaling of inputs, to avoid unit dependence
    source_receiver = layers.Concatenate(name="source_receiver_coords", axis=-1)(
        [source_coords, receiver_coords]
    )
    source_receiver_scaled = layers.Rescaling(
        1 / input_scale, name="source_receiver_scaled"
    )(source_receiver)

    # Trainable body consisting of Dense layers only
    hidden_state = layers.Dense(
        num_units, activation=kernel_activation, kernel_initializer=kernel_initializer
    )(source_receiver_scaled)
    for i in range(1, num_layers):
        hidden_state = layers.Dense(
            num_units,
            activation=kernel_activation,
            kernel_initializer=kernel_initializer,
        )(hidden_state)

    output_state = layers.Dense(
        1,  # traveltime is scalar function -> one output
        activation=output_activation,
        kernel_initializer=kernel_initializer,
    )(hidden_state)

    # Reciprocity principal of traveltimes states:
    # Traveltime(source, receiver) = Traveltime(receiver, source)
    # To make it strictly valid for out network, we apply sum of permutations

    traveltime_initial_model = keras.models.Model(
        inputs=inputs_list, outputs=output_state, name="Traveltime_No_Reciprocity"
    )

    # Permuted arguments 1: Source --> Receiver
    source_receiver_list = source_coords_list + receiver_coords_list
    # Permuted arguments 2: Receiver --> Source
    receiver_source_list = receiver_coords_list + source_coords_list

    traveltime_source_receiver = traveltime_initial_model(source_receiver_list)
    traveltime_receiver_source = traveltime_initial_model(receiver_source_list)

    # Average of input permutations will make T(xs,xr) = T(xr,xs)
    traveltime = layers.Lambda(lambda x: 0.5 * (x[0] + x[1]), name="Reciprocity")(
        [traveltime_source_receiver, traveltime_receiver_source]
    )

    # The velocity constraint for the solution by minimum and maximum velocities
    traveltime = layers.Lambda(
        lambda x: (1 / velocity_min - 1 / velocity_max) * x + 1 / velocity_max,
        name="velocity_scaling",
    )(traveltime)

    # The boundary condition T(source, source) = 0 is introduced by factorization
    source_receiver_difference = layers.Subtract(name="source_receiver_difference")(
        [receiver_coords, source_coords]
    )

    distance = layers.Lambda(
        lambda x: tf.norm(x, axis=-1, keepdims=True), name="distance_factor"
    )(source_receiver_difference)

    traveltime = layers.Multiply(name="Traveltime")([traveltime, distance])

    # Emulation of the eikonal equation

    # Calculation of derivatives
    traveltime_gradient_list = layers.Lambda(
        lambda x: tf.gradients(x[0], x[1], unconnected_gradients="zero"),
        name="gradients_receiver",
    )([traveltime, receiver_coords_list])

    traveltime_gradient = layers.Concatenate(axis=-1)(traveltime_gradient_list)
    traveltime_gradient_norm = layers.Lambda(
        lambda x: tf.norm(x, axis=-1, keepdims=True), name="gradient_norm"
    )(
        traveltime_gradient
    )  # |grad T|

    # The eikonal equation as a loss
    # We use the Hamiltonian form of eikonal: `(v**2 * |grad T|**2 - 1) / 2 = 0`
    eikonal = layers.Lambda(
        lambda x: ((x[0] * x[1]) ** 2 - 1.0) / 2, name="Eikonal_Equation"
    )([traveltime_gradient_norm, velocity_at_receiver])

    # Traveltime model used for the prediction (the solution itself)
    traveltime_model = keras.models.Model(
        inputs=inputs_list, outputs=traveltime, name="Model_Traveltime"
    )

    # Eikonal equation model used for the training (for solving the eikonal)
    eikonal_model = keras.models.Model(
        inputs=inputs_list + [velocity_at_receiver],
        outputs=eikonal,
        name="Model_Eikonal_Equation",
    )

    return traveltime_model, eikonal_model

# [cell 3]
def RandomGaussians(velocity_min, velocity_max, num_gaussians, coord_limits):
    np.random.seed(411)

    velocity_diff = velocity_max - velocity_min

    vels = np.random.uniform(-velocity_diff, velocity_diff, size=num_gaussians)
    coord_limits = np.array(coord_limits)
    coord_min, coord_max = coord_limits.min(), coord_limits.max()
    sigma_limit = coord_max - coord_min
    sigmas = np.random.uniform(
        sigma_limit * 0.05, sigma_limit * 0.25, size=num_gaussians
    )
    num_dim = coord_limits.shape[-1]
    centers = np.random.uniform(coord_min, coord_max, size=(num_gaussians, num_dim))

    def _func(input_coords):
        shape = input_coords.shape[:-1]
        velocity = np.zeros(shape)
        dim_reshape = (None,) * (input_coords.ndim - 1)
        for center_i, sigma_i, velocity_i in zip(centers, sigmas, vels):
            gaussian = -((input_coords - center_i[dim_reshape]) ** 2) / 2 / sigma_i**2
            velocity += velocity_i * np.exp(gaussian).prod(axis=-1)
        velocity -= velocity.min()
        velocity = velocity / velocity.max() * velocity_diff + velocity_min
        return velocity

    return _func


x_num, y_num = 21, 21
x_min, x_max = 0, 1
y_min, y_max = 0, 1
receiver_x = np.linspace(x_min, x_max, x_num)
receiver_y = np.linspace(y_min, y_max, y_num)

receiver_x_mesh, receiver_y_mesh = np.meshgrid(receiver_x, receiver_y, indexing="ij")
receiver_xy_mesh = np.stack([receiver_x_mesh, receiver_y_mesh], axis=-1)

input_scale = np.max(np.abs(receiver_xy_mesh))

velocity_min, velocity_max = 1.0, 3.5
velocity_func = RandomGaussians(
    velocity_min, velocity_max, num_gaussians=21, coord_limits=[x_min, x_max]
)

velocity_model = velocity_func(receiver_xy_mesh)

# [cell 4]
fig_vmap = plt.figure(figsize=(6, 5))
ax_vmap = fig_vmap.add_subplot(1, 1, 1)
velocity_image = ax_vmap.pcolormesh(receiver_x_mesh, receiver_y_mesh, velocity_model)
fig_vmap.colorbar(velocity_image, ax=ax_vmap, label="Velocity (km/s)")
plt.show()

# [cell 5]
traveltime_model, eikonal_model = build_model(
    input_scale, velocity_min, velocity_max, num_dim=receiver_xy_mesh.shape[-1]
)

optimizer = tf.optimizers.Adam(learning_rate=2.5e-3)

# We use `MAE` loss for the eikonal to be robust to outliers.
loss = "mae"

eikonal_model.compile(optimizer=optimizer, loss=loss)

# For the training (solving), we generate `N` random `Source -> Receiver` pairs
# inside the given velocity model

num_train = 400  # Number of random collocation points for training
inputs_train = {
    "source_coord_0": np.random.uniform(x_min, x_max, num_train),
    "source_coord_1": np.random.uniform(y_min, y_max, num_train),
    "receiver_coord_0": np.random.uniform(x_min, x_max, num_train),
    "receiver_coord_1": np.random.uniform(y_min, y_max, num_train),
}

train_receiver_coords = np.stack(
    (inputs_train["receiver_coord_0"], inputs_train["receiver_coord_1"]), axis=-1
)
inputs_train["velocity_at_receiver"] = velocity_func(train_receiver_coords)
eikonal_output_train = np.zeros(num_train)

# [cell 6]
history = eikonal_model.fit(
    x=inputs_train,
    y=eikonal_output_train,
    batch_size=round(num_train / 4),
    epochs=5,
    verbose=0,
    shuffle=False,
)
show(history)

# [cell 7]
sparsity = 4
source_x = receiver_x[::sparsity]
source_y = receiver_y[::sparsity]

pairs = np.meshgrid(source_x, source_y, receiver_x, receiver_y, indexing="ij")
pairs = np.stack(pairs, axis=-1)

shape = pairs.shape[:-1]

inputs_test = {
    "source_coord_0": pairs[..., 0].ravel(),  # Source - X
    "source_coord_1": pairs[..., 1].ravel(),  # Source - Y
    "receiver_coord_0": pairs[..., 2].ravel(),  # Receiver - X
    "receiver_coord_1": pairs[..., 3].ravel(),
}  # Receiver - Y

traveltime_pred = traveltime_model.predict(inputs_test, batch_size=250000).reshape(
    shape
)

# [cell 8]
source_ind = (5, 5)  # To plot the solution, we choose a sample Source point

fig_vmap = plt.figure(figsize=(6, 5))
ax_vmap = fig_vmap.add_subplot(1, 1, 1)
velocity_image = ax_vmap.pcolormesh(receiver_x_mesh, receiver_y_mesh, velocity_model)
source_point = ax_vmap.scatter(
    source_x[source_ind[0]], source_y[source_ind[1]], s=100, c="blue", marker="*"
)
fig_vmap.colorbar(velocity_image, ax=ax_vmap, label="Velocity (km / s)")
tctr_pred = ax_vmap.contour(
    receiver_x_mesh,
    receiver_y_mesh,
    traveltime_pred[source_ind],
    levels=12,
    colors=["w"],
    linestyles="--",
    linewidths=2,
)
ax_vmap.clabel(tctr_pred, tctr_pred.levels, fmt="{0:.2f} s".format)
plt.show()
show(traveltime_pred[source_ind])
