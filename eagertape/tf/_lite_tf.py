"""The half of ``tf.lite.TFLiteConverter.convert`` that runs in a TensorFlow process.

``eagertape.tf.lite`` writes the model as a SavedModel (``tf.saved_model.save``'s
writer: jax2tf's ``XlaCallModule`` ops, which TF's converter legalizes from their
StableHLO to TFLite's builtin ops), then runs this module's source in a fresh
interpreter (``python -P -c``) with the SavedModel's folder, a JSON file of the
converter's settings and the path to write the flatbuffer to: here TF's own
``tf.lite.TFLiteConverter.from_saved_model(...).convert()`` makes the model.

Nothing here runs when the module is imported: ``_main`` runs only as ``__main__``.
"""
import json
import os
import sys


def _main(saved_model_dir, settings_path, out):
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import tensorflow as tf

    with open(settings_path) as f:
        settings = json.load(f)
    tags = settings.get("tags")
    converter = tf.lite.TFLiteConverter.from_saved_model(
        saved_model_dir, signature_keys=settings.get("signature_keys"),
        tags=None if tags is None else set(tags))
    if settings.get("optimizations") is not None:
        converter.optimizations = [tf.lite.Optimize[n] for n in settings["optimizations"]]
    if settings.get("supported_ops") is not None:
        converter.target_spec.supported_ops = {tf.lite.OpsSet[n]
                                               for n in settings["supported_ops"]}
    if settings.get("supported_types") is not None:
        converter.target_spec.supported_types = {tf.as_dtype(n)
                                                 for n in settings["supported_types"]}
    for name in ("inference_input_type", "inference_output_type"):
        if settings.get(name) is not None:
            setattr(converter, name, tf.as_dtype(settings[name]))
    for name, value in settings.get("flags", {}).items():
        setattr(converter, name, value)
    samples = settings.get("representative_dataset")
    if samples is not None:
        # The program's generator, drawn to its end in the program's process: each
        # sample a list of arrays (or a dict of them by input name), replayed here.
        data = np.load(samples["file"])

        def representative_dataset():
            for kind, names in samples["samples"]:
                values = [data[n] for n in names]
                yield dict(zip(kind, values)) if isinstance(kind, list) else values
        converter.representative_dataset = representative_dataset
    model = converter.convert()
    with open(out, "wb") as f:
        f.write(model)


if __name__ == "__main__":
    _main(sys.argv[1], sys.argv[2], sys.argv[3])
