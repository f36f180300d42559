"""A tf.distribute training program run by tests/test_tf_distribute.py in a process
of its own, with TensorFlow (``tf``) or eagertape (``eagertape``), under one of
``KINDS``: the default strategy, MirroredStrategy on one device, OneDeviceStrategy,
or MirroredStrategy on two CPU devices (TF's logical CPUs, JAX's host-platform
device count). It prints one line, ``@@`` and a JSON of what it saw: the losses of
a custom training loop as TF's distributed-training tutorial writes it (in a
tf.function and eagerly), the replicas' values, reductions, and datasets."""
import json
import sys

# Two runs: the one-replica strategies in one process, two replicas in another.
RUNS = {"one_replica": ("default", "mirrored", "one_device"), "two_replicas": ("mirrored_two",)}


def main(which, run):
    kind = RUNS[run][0]
    if which == "tf":
        import tensorflow as tf
    else:
        import eagertape.tf as tf
    if kind == "mirrored_two":
        # TF's virtual CPUs, as TF's distributed-input tutorial makes them: before the
        # first operation (eagertape: JAX's jax_num_cpu_devices, before JAX starts)
        cpu = tf.config.list_physical_devices("CPU")[0]
        tf.config.set_logical_device_configuration(
            cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
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
    out.update(input_tutorial(tf, strategy))
    return out


def input_tutorial(tf, strategy):
    """What TF's distributed-input tutorial (site/en/tutorials/distribute/input.ipynb)
    and distributed-training guide do, by value."""
    import numpy as np

    def local(v):
        return [np.asarray(t).tolist() for t in strategy.experimental_local_results(v)]

    out = {"devices": [d.name for d in tf.config.list_logical_devices("CPU")],
           "physical": [d.name for d in tf.config.list_physical_devices("CPU")],
           "default_replicas": tf.distribute.MirroredStrategy().num_replicas_in_sync}
    # get_next_as_optional, eagerly: the steps of 9 elements in global batches of 4
    it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(9).batch(4)))
    steps = []
    while True:
        opt = it.get_next_as_optional()
        if not bool(opt.has_value()):
            break
        steps.append(local(strategy.run(lambda x: x * 2, args=(opt.get_value(),))))
    out["optional_steps"] = steps
    # an index with each element (enumerate), gathered back by index
    ds = strategy.experimental_distribute_dataset(tf.data.Dataset.range(12).enumerate().batch(6))
    out["indexed"] = [[local(i), local(x)] for i, x in ds]
    vals = strategy.experimental_distribute_values_from_function(
        lambda ctx: tf.constant(ctx.replica_id_in_sync_group) * 10)
    out["values_from_function"] = local(strategy.run(lambda x: x + 1, args=(vals,)))
    layer = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c", "d", "f"])

    def dataset_fn(ctx):
        d = tf.data.Dataset.from_tensor_slices(["a", "c", "e"]).repeat()
        d = d.batch(ctx.get_per_replica_batch_size(4)).shard(ctx.num_input_pipelines,
                                                             ctx.input_pipeline_id)
        return d.map(lambda s: layer(s))
    dit = iter(strategy.distribute_datasets_from_function(dataset_fn))
    out["string_lookup"] = [local(next(dit)) for _ in range(3)]
    # devices a machine lacks are placed on the CPU (soft placement): replicas all the same
    soft = tf.distribute.MirroredStrategy(devices=["/gpu:0", "/gpu:1"])
    out["soft"] = [soft.num_replicas_in_sync, list(soft.extended.worker_devices),
                   [float(v) for v in soft.experimental_local_results(
                       soft.run(lambda: tf.constant(2.0) * 3.0))]]
    central = tf.distribute.experimental.CentralStorageStrategy()
    out["central"] = [central.num_replicas_in_sync,
                      float(central.reduce("SUM", central.run(lambda: tf.constant(1.5)),
                                           axis=None))]
    opts = tf.distribute.experimental.CommunicationOptions(
        implementation=tf.distribute.experimental.CommunicationImplementation.NCCL)
    out["communication"] = opts.implementation.name
    return out


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
