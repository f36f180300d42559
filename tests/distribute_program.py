"""A tf.distribute training program run by tests/test_tf_distribute.py in a process
of its own, with TensorFlow (``tf``) or eagertape (``eagertape``), under one of
``KINDS``: the default strategy, MirroredStrategy on one device, OneDeviceStrategy,
or MirroredStrategy on two CPU devices (TF's logical CPUs, JAX's host-platform
device count). It prints one line, ``@@`` and a JSON of what it saw: the losses of
a custom training loop as TF's distributed-training tutorial writes it (in a
tf.function and eagerly), the replicas' values, reductions, and datasets."""
import json
import os
import sys

# Two runs: the one-replica strategies in one process, two replicas in another.
RUNS = {"one_replica": ("default", "mirrored", "one_device"), "two_replicas": ("mirrored_two",)}


def main(which, run):
    kind = RUNS[run][0]
    if which == "tf":
        import tensorflow as tf
        if kind == "mirrored_two":
            cpu = tf.config.list_physical_devices("CPU")[0]
            tf.config.set_logical_device_configuration(
                cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    else:
        if kind == "mirrored_two":
            os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "")
                                       + " --xla_force_host_platform_device_count=2")
        import eagertape.tf as tf
    print("@@" + json.dumps({k: program(tf, k) for k in RUNS[run]}))


def program(tf, kind):
    import numpy as np

    rs = np.random.RandomState(0)
    x = rs.normal(size=(10, 3)).astype("float32")
    y = rs.randint(0, 3, 10)
    strategy = {"default": lambda: tf.distribute.get_strategy(),
                "mirrored": lambda: tf.distribute.MirroredStrategy(),
                "one_device": lambda: tf.distribute.OneDeviceStrategy("/cpu:0"),
                "mirrored_two": lambda: tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"]),
                }[kind]()
    out = {"replicas": strategy.num_replicas_in_sync,
           "outside": [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context()]}
    global_batch = 4
    dist = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))
    with strategy.scope():
        out["inside"] = [tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context(),
                         tf.distribute.get_replica_context() is None,
                         tf.distribute.get_strategy() is strategy]
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(4, activation="relu",
                                  kernel_regularizer=tf.keras.regularizers.L2(1e-2)),
            tf.keras.layers.Dense(3)])
        model.build((None, 3))
        for w in model.weights:
            w.assign(rs.normal(size=w.shape).astype("float32") * 0.5)
        opt = tf.keras.optimizers.Adam(0.05)
        opt.build(model.trainable_variables)   # TF's Keras cannot make slots in a replica
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True,
                                                                    reduction="none")
        accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
        try:
            tf.nn.compute_average_loss(tf.constant([1.0]))
            out["cross_replica_loss"] = "ok"
        except RuntimeError:
            out["cross_replica_loss"] = "RuntimeError"

    def train_step(inputs):
        images, labels = inputs
        with tf.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = tf.nn.compute_average_loss(loss_object(labels, predictions))
            loss += tf.nn.scale_regularization_loss(tf.add_n(model.losses))
        gradients = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(gradients, model.trainable_variables))
        accuracy.update_state(labels, predictions)
        return loss

    @tf.function
    def compiled_step(d):
        per_replica = strategy.run(train_step, args=(d,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    out["compiled_losses"] = [float(compiled_step(d)) for _ in range(2) for d in dist]
    out["accuracy"] = float(accuracy.result())
    eager = []
    for d in dist:
        per_replica = strategy.run(train_step, args=(d,))
        eager.append([float(strategy.reduce("SUM", per_replica, axis=None)),
                      [float(v) for v in strategy.experimental_local_results(per_replica)]])
    out["eager_losses"] = eager
    out["weights"] = [w.numpy().tolist() for w in model.weights]

    steps = list(dist)
    out["slices"] = [[v.shape[0] for v in strategy.experimental_local_results(s[0])]
                     for s in steps]
    doubled = strategy.run(lambda d: d[0] * 2.0, args=(steps[0],))
    out["mean_axis0"] = strategy.reduce("MEAN", doubled, axis=0).numpy().tolist()
    out["sum_axis0"] = strategy.reduce("SUM", doubled, axis=0).numpy().tolist()
    out["gather"] = strategy.gather(doubled, axis=0).numpy().tolist()
    out["ids"] = [int(v) for v in strategy.experimental_local_results(strategy.run(
        lambda: tf.distribute.get_replica_context().replica_id_in_sync_group))]

    def dataset_fn(ctx):
        return tf.data.Dataset.from_tensor_slices(x).batch(
            ctx.get_per_replica_batch_size(global_batch))
    out["from_function"] = [
        [v.numpy().tolist() for v in strategy.experimental_local_results(e)]
        for e in strategy.distribute_datasets_from_function(dataset_fn)]
    try:
        strategy.reduce("SUM", tf.constant(1.0), axis=None)
        out["sum_of_a_plain_value"] = "ok"
    except ValueError:
        out["sum_of_a_plain_value"] = "ValueError"
    try:
        tf.distribute.cluster_resolver.TPUClusterResolver()
        out["tpu"] = "ok"
    except ValueError:
        out["tpu"] = "ValueError"
    return out


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
