# keras.io "Training & evaluation with the built-in methods", shrunk: compile
# with a loss object, metrics and a learning-rate schedule; fit with
# validation_split, callbacks (LearningRateScheduler, EarlyStopping with
# restore_best_weights, a LambdaCallback recording each epoch's logs), the
# History object; evaluate and predict afterwards.
rs = np.random.RandomState(61)
x = rs.randn(60, 4).astype("float32")
y = (x[:, :2].sum(axis=1) > 0).astype("float32")[:, None]
model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
model.set_weights(weights_like(model, 62))
model.compile(optimizer=tf.keras.optimizers.RMSprop(learning_rate=0.05),
              loss=tf.keras.losses.BinaryCrossentropy(),
              metrics=[tf.keras.metrics.BinaryAccuracy(), tf.keras.metrics.AUC(name="auc")])
seen = []
callbacks = [
    tf.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch >= 2 else lr),
    tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True),
    tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: seen.append([logs[k] for k in sorted(logs)])),
]
hist = model.fit(x, y, batch_size=16, epochs=8, validation_split=0.25, shuffle=False,
                 callbacks=callbacks, verbose=0)
emit("epochs run", len(hist.history["loss"]))
emit("history", [hist.history[k] for k in sorted(hist.history)])
emit("keys", [len(k) for k in sorted(hist.history)])
emit("seen", seen)
emit("evaluate", model.evaluate(x, y, verbose=0))
emit("predict", model.predict(x[:5], verbose=0))
emit("weights", model.get_weights())
