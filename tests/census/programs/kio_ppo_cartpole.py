# Proximal Policy Optimization: keras-team/keras-io examples/rl/ppo_cartpole.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/rl/ppo_cartpole.py
# commit: 3b492afb86be7e3b7052f2b5ec04ffd559d8d4fb
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - another library: gym is not installed with the tests: `import gym` is a stand-in of CartPole-v0's
#   dynamics (gym's equations and limits, its old reset/step API; seeded), written in the program;
# - determinism: sample_action's tf.random.categorical(logits, 1) (TF's generator) is the Gumbel-max
#   draw tf.argmax(logits + gumbel, axis=1), its Gumbel noise drawn from NumPy by the caller and
#   passed as sample_action's second argument;
# - TF 2.21 cannot run tf.squeeze on a Keras symbolic tensor (Keras 3 refuses TF ops on a functional
#   model's KerasTensors): the critic's tf.squeeze(..., axis=1) is wrapped in a layers.Lambda;
# - sizes: steps_per_epoch 4000 is 100, epochs 30 are 2, train_policy_iterations and
#   train_value_iterations 80 are 5;
# - TF 2.21 with NumPy 2 cannot store a shape-(1,) tensor into one element of a NumPy array
#   (EagerTensor.__int__ raises): the buffer stores action[0], value_t[0], logprobability_t[0];
#   added: the trained actor's and critic's outputs on 5 observations are shown
#

# [cell 1]
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
class gym:
    # Another library: gym is not installed with the tests. CartPole-v0's dynamics
    # (gym's classic_control/cartpole.py: Euler steps of 0.02 s, force 10, done past
    # 12 degrees or 2.4 units, or at 200 steps), with gym's old reset/step/seed API.
    class _CartPole:
        def seed(self, seed=None):
            self._rs = np.random.RandomState(seed)
        def reset(self):
            self.s = self._rs.uniform(-0.05, 0.05, 4)
            self.t = 0
            return self.s.astype("float32")
        def step(self, action):
            x, x_dot, th, th_dot = self.s
            force = 10.0 if action == 1 else -10.0
            c, s = np.cos(th), np.sin(th)
            temp = (force + 0.05 * th_dot ** 2 * s) / 1.1
            th_acc = (9.8 * s - c * temp) / (0.5 * (4.0 / 3.0 - 0.1 * c ** 2 / 1.1))
            x_acc = temp - 0.05 * th_acc * c / 1.1
            self.s = np.array([x + 0.02 * x_dot, x_dot + 0.02 * x_acc,
                               th + 0.02 * th_dot, th_dot + 0.02 * th_acc])
            self.t += 1
            done = bool(abs(self.s[0]) > 2.4 or abs(self.s[2]) > 12 * 2 * np.pi / 360
                        or self.t >= 200)
            return self.s.astype("float32"), 1.0, done, {}
    class _Space:
        def __init__(self, shape=(), n=None):
            self.shape, self.n = shape, n
    @staticmethod
    def make(name):
        env = gym._CartPole()
        env.seed(0)     # (gym seeds an unseeded env from the OS: the census seeds it)
        env.observation_space, env.action_space = gym._Space((4,)), gym._Space((), 2)
        return env
import scipy.signal
import time

# [cell 2]
class PPO:
    def __init__(
        self,
        observation_dimensions,
        num_actions,
        steps_per_epoch,
        policy_learning_rate=3e-4,
        value_function_learning_rate=1e-3,
        clip_ratio=0.2,
        hidden_sizes=(64, 64),
        gamma=0.99,
        lam=0.95
    ):
        self.observation_dimensions = observation_dimensions
        self.steps_per_epoch = steps_per_epoch
        self.hidden_sizes = hidden_sizes
        self.num_actions = num_actions
        self.policy_learning_rate = policy_learning_rate
        self.value_function_learning_rate = value_function_learning_rate
        self.clip_ratio = clip_ratio

        # Initialize the buffer
        self.buffer = self.Buffer(
            self.observation_dimensions,
            self.steps_per_epoch
        )

        # Initialize the actor and the critic as keras models
        observation_input = keras.Input(
            shape=(self.observation_dimensions,),
            dtype=tf.float32
        )

        logits = self.mlp(
            observation_input,
            list(self.hidden_sizes) + [self.num_actions],
            tf.tanh,
            None
        )

        self.actor = keras.Model(inputs=observation_input, outputs=logits)

        value = layers.Lambda(lambda v: tf.squeeze(v, axis=1))(
            self.mlp(
                observation_input,
                list(self.hidden_sizes) + [1],
                tf.tanh,
                None
            )
        )

        self.critic = keras.Model(inputs=observation_input, outputs=value)

        # Initialize the policy and the value function optimizers
        self.policy_optimizer = keras.optimizers.Adam(
            learning_rate=self.policy_learning_rate
        )

        self.value_optimizer = keras.optimizers.Adam(
            learning_rate=self.value_function_learning_rate
        )

    class Buffer:
        # Buffer for storing trajectories
        def __init__(self, observation_dimensions, size, gamma=0.99, lam=0.95):
            # Buffer initialization
            self.gamma = gamma
            self.lam = lam
            self.pointer = 0
            self.trajectory_start_index = 0

            shape = (size, observation_dimensions)
            self.observation_buffer = np.zeros(shape, dtype=np.float32)
            self.action_buffer = np.zeros(size, dtype=np.int32)
            self.advantage_buffer = np.zeros(size, dtype=np.float32)
            self.reward_buffer = np.zeros(size, dtype=np.float32)
            self.return_buffer = np.zeros(size, dtype=np.float32)
            self.value_buffer = np.zeros(size, dtype=np.float32)
            self.logprobability_buffer = np.zeros(size, dtype=np.float32)

        def store(self, observation, action, reward, value, logprobability):
            # Append one step of agent-environment interaction
            self.observation_buffer[self.pointer] = observation
            self.action_buffer[self.pointer] = action
            self.reward_buffer[self.pointer] = reward
            self.value_buffer[self.pointer] = value
            self.logprobability_buffer[self.pointer] = logprobability
            self.pointer += 1

        def finish_trajectory(self, last_value=0):
            # Finish the trajectory by computing advantage estimates and rewards-to-go
            path_slice = slice(self.trajectory_start_index, self.pointer)
            rewards = np.append(self.reward_buffer[path_slice], last_value)
            values = np.append(self.value_buffer[path_slice], last_value)

            # Compute the GAE-Lambda advantage estimates
            deltas = rewards[:-1] + self.gamma * values[1:] - values[:-1]
            self.advantage_buffer[path_slice] = self.discounted_cumulative_sums(
                deltas, self.gamma * self.lam
            )

            # Compute the rewards-to-go
            self.return_buffer[path_slice] = self.discounted_cumulative_sums(
                rewards, self.gamma
            )[:-1]

            self.trajectory_start_index = self.pointer

        def get(self):
            # Get all data of the buffer and normalize the advantages
            self.pointer, self.trajectory_start_index = 0, 0
            advantage_mean, advantage_std = (
                np.mean(self.advantage_buffer),
                np.std(self.advantage_buffer),
            )
            self.advantage_buffer = (
                self.advantage_buffer - advantage_mean) / advantage_std
            return (
                self.observation_buffer,
                self.action_buffer,
                self.advantage_buffer,
                self.return_buffer,
                self.logprobability_buffer,
            )

        def discounted_cumulative_sums(self, x, discount):
            # Discounted cumulative sums of vectors for computing rewards-to-go and advantage estimates
            return scipy.signal.lfilter([1], [1, float(-discount)], x[::-1], axis=0)[::-1]

    def mlp(self, x, sizes, activation=tf.tanh, output_activation=None):
        # Build a feedforward neural network
        for size in sizes[:-1]:
            x = layers.Dense(units=size, activation=activation)(x)
        return layers.Dense(units=sizes[-1], activation=output_activation)(x)

    def logprobabilities(self, logits, a):
        # Compute the log-probabilities of taking actions a by using the logits (i.e. the output of the actor)
        logprobabilities_all = tf.nn.log_softmax(logits)
        logprobability = tf.reduce_sum(
            tf.one_hot(a, self.num_actions) * logprobabilities_all, axis=1
        )
        return logprobability

    @tf.function
    def sample_action(self, observation, gumbel):
        # Sample action from actor
        logits = self.actor(observation)
        action = tf.argmax(logits + gumbel, axis=1)
        return logits, action

    @tf.function
    def train_policy(self, observation_buffer, action_buffer, logprobability_buffer, advantage_buffer):
        # Train the policy by maxizing the PPO-Clip objective
        with tf.GradientTape() as tape:  # Record operations for automatic differentiation.
            ratio = tf.exp(
                self.logprobabilities(self.actor(
                    observation_buffer), action_buffer)
                - logprobability_buffer
            )
            min_advantage = tf.where(
                advantage_buffer > 0,
                (1 + self.clip_ratio) * advantage_buffer,
                (1 - self.clip_ratio) * advantage_buffer,
            )

            policy_loss = -tf.reduce_mean(
                tf.minimum(ratio * advantage_buffer, min_advantage)
            )
        policy_grads = tape.gradient(
            policy_loss, self.actor.trainable_variables)
        self.policy_optimizer.apply_gradients(
            zip(policy_grads, self.actor.trainable_variables))

        self.kl = tf.reduce_mean(
            logprobability_buffer
            - self.logprobabilities(self.actor(observation_buffer), action_buffer)
        )
        self.kl = tf.reduce_sum(self.kl)
        return self.kl

    @tf.function
    def train_value_function(self, observation_buffer, return_buffer):
        # Train the value function by regression on mean-squared error
        with tf.GradientTape() as tape:  # Record operations for automatic differentiation.
            value_loss = tf.reduce_mean(
                (return_buffer - self.critic(observation_buffer)) ** 2)
        value_grads = tape.gradient(
            value_loss, self.critic.trainable_variables)
        self.value_optimizer.apply_gradients(
            zip(value_grads, self.critic.trainable_variables))

    def save(self, path):
        """Salva o modelo treinado em um arquivo."""
        self.actor.save(f"{path}_actor.h5")
        self.critic.save(f"{path}_critic.h5")

    def load(self, path):
        """Carrega um modelo previamente treinado de um arquivo."""
        self.actor = keras.models.load_model(f"{path}_actor.h5")
        self.critic = keras.models.load_model(f"{path}_critic.h5")

# [cell 3]
# Hyperparameters of the PPO algorithm
steps_per_epoch = 100
epochs = 2
train_policy_iterations = 5
train_value_iterations = 5
target_kl = 0.01
hidden_sizes = (64, 64)

# True if you want to render the environment
render = False

# [cell 4]
# Initialize the environment and get the dimensionality of the
# observation space and the number of possible actions
env = gym.make("CartPole-v0")
observation_dimensions = env.observation_space.shape[0]
num_actions = env.action_space.n

# Initialize PPO
ppo = PPO(
    observation_dimensions=observation_dimensions,
    num_actions=num_actions,
    steps_per_epoch=steps_per_epoch,
)

# Initialize the observation, episode return and episode length
observation, episode_return, episode_length = env.reset(), 0, 0

# [cell 5]
# Iterate over the number of epochs
for epoch in range(epochs):
    # Initialize the sum of the returns, lengths and number of episodes for each epoch
    sum_return = 0
    sum_length = 0
    num_episodes = 0

    # Iterate over the steps of each epoch
    for t in range(steps_per_epoch):
        if render:
            env.render()

        # Get the logits, action, and take one step in the environment
        observation = observation.reshape(1, -1)
        gumbel = -np.log(-np.log(np.random.uniform(size=(1, num_actions)))).astype("float32")
        logits, action = ppo.sample_action(observation, gumbel)
        observation_new, reward, done, _ = env.step(action[0].numpy())
        episode_return += reward
        episode_length += 1

        # Get the value and log-probability of the action
        value_t = ppo.critic(observation)
        logprobability_t = ppo.logprobabilities(logits, action)

        # Store obs, act, rew, v_t, logp_pi_t
        ppo.buffer.store(observation, action[0], reward,
                         value_t[0], logprobability_t[0])

        # Update the observation
        observation = observation_new

        # Finish trajectory if reached to a terminal state
        terminal = done
        if terminal or (t == steps_per_epoch - 1):
            last_value = 0 if done else ppo.critic(observation.reshape(1, -1))
            ppo.buffer.finish_trajectory(last_value)
            sum_return += episode_return
            sum_length += episode_length
            num_episodes += 1
            observation, episode_return, episode_length = env.reset(), 0, 0

    # Get values from the buffer
    (
        observation_buffer,
        action_buffer,
        advantage_buffer,
        return_buffer,
        logprobability_buffer,
    ) = ppo.buffer.get()

    # Update the policy and implement early stopping using KL divergence
    for _ in range(train_policy_iterations):
        kl = ppo.train_policy(
            observation_buffer, action_buffer, logprobability_buffer, advantage_buffer
        )
        if kl > 1.5 * target_kl:
            # Early Stopping
            break

    # Update the value function
    for _ in range(train_value_iterations):
        ppo.train_value_function(observation_buffer, return_buffer)

    # Print mean return and length for each epoch
    print(
        f" Epoch: {epoch + 1}. Mean Return: {sum_return / num_episodes}. Mean Length: {sum_length / num_episodes}"
    )
show(ppo.actor(observation_buffer[:5]))
show(ppo.critic(observation_buffer[:5]))
