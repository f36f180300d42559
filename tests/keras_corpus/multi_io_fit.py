# keras.io "The Functional API", the multi-input multi-output ticket model,
# shrunk: two inputs (an embedded token sequence and tags), two named outputs,
# compile with a loss and a loss weight per output, fit on dicts, evaluate;
# then the gradient of each output's mean w.r.t. the model's weights by a tape.
num_words, num_tags, num_departments = 20, 3, 2
title_input = tf.keras.Input(shape=(5,), name="title")
tags_input = tf.keras.Input(shape=(num_tags,), name="tags")
title_features = tf.keras.layers.Embedding(num_words, 4)(title_input)
title_features = tf.keras.layers.GlobalAveragePooling1D()(title_features)
x = tf.keras.layers.concatenate([title_features, tags_input])
priority_pred = tf.keras.layers.Dense(1, name="priority")(x)
department_pred = tf.keras.layers.Dense(num_departments, name="department")(x)
model = tf.keras.Model(inputs=[title_input, tags_input], outputs=[priority_pred, department_pred])
model.set_weights(weights_like(model, 111))
model.compile(optimizer=tf.keras.optimizers.SGD(0.1),
              loss={"priority": tf.keras.losses.MeanSquaredError(),
                    "department": tf.keras.losses.CategoricalCrossentropy(from_logits=True)},
              loss_weights={"priority": 1.0, "department": 0.2})
rs = np.random.RandomState(112)
title_data = rs.randint(num_words, size=(16, 5))
tags_data = rs.randint(2, size=(16, num_tags)).astype("float32")
priority_targets = rs.random_sample(size=(16, 1)).astype("float32")
dept_targets = np.eye(num_departments, dtype="float32")[rs.randint(num_departments, size=16)]
hist = model.fit({"title": title_data, "tags": tags_data},
                 {"priority": priority_targets, "department": dept_targets},
                 epochs=2, batch_size=8, shuffle=False, verbose=0)
emit("loss", hist.history["loss"])
emit("evaluate", model.evaluate({"title": title_data, "tags": tags_data},
                                {"priority": priority_targets, "department": dept_targets},
                                verbose=0))
with tf.GradientTape(persistent=True) as tape:
    p, d = model({"title": title_data[:4], "tags": tags_data[:4]})
    mp, md = tf.reduce_mean(p), tf.reduce_mean(tf.nn.softmax(d)[:, 0])
emit("grad priority", [None if g is None else tf.convert_to_tensor(g) for g in tape.gradient(mp, model.trainable_variables)])
emit("grad department", [None if g is None else tf.convert_to_tensor(g) for g in tape.gradient(md, model.trainable_variables)])
