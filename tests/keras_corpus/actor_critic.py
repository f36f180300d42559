# TF tutorial "Playing CartPole with the Actor-Critic method", without the
# environment: an episode's states, actions and rewards are given; the model with
# a common layer and actor and critic heads, expected returns, the actor loss
# (-log pi * advantage) and the Huber critic loss, one Adam step per episode.
class ActorCritic(tf.keras.Model):
    def __init__(self, num_actions, num_hidden_units):
        super().__init__()
        self.common = tf.keras.layers.Dense(num_hidden_units, activation="relu")
        self.actor = tf.keras.layers.Dense(num_actions)
        self.critic = tf.keras.layers.Dense(1)

    def call(self, inputs):
        x = self.common(inputs)
        return self.actor(x), self.critic(x)


model = ActorCritic(2, 8)
model(tf.zeros((1, 4)))
model.set_weights(weights_like(model, 32))
huber_loss = tf.keras.losses.Huber(reduction="sum")
optimizer = tf.keras.optimizers.Adam(learning_rate=0.01)
eps = np.finfo(np.float32).eps.item()


def get_expected_return(rewards, gamma, standardize=True):
    n = rewards.shape[0]
    returns = []
    discounted_sum = 0.0
    for i in range(n - 1, -1, -1):
        discounted_sum = rewards[i] + gamma * discounted_sum
        returns.append(discounted_sum)
    returns = tf.constant(returns[::-1], dtype=tf.float32)
    if standardize:
        returns = ((returns - tf.math.reduce_mean(returns)) /
                   (tf.math.reduce_std(returns) + eps))
    return returns


def compute_loss(action_probs, values, returns):
    advantage = returns - values
    action_log_probs = tf.math.log(action_probs)
    actor_loss = -tf.math.reduce_sum(action_log_probs * advantage)
    critic_loss = huber_loss(values, returns)
    return actor_loss + critic_loss


rs = np.random.RandomState(33)
out = []
for episode in range(2):
    states = tf.constant(rs.randn(7, 4).astype("float32"))
    actions = rs.randint(0, 2, 7)
    rewards = np.ones(7, np.float32)
    with tf.GradientTape() as tape:
        logits, values = model(states)
        probs = tf.nn.softmax(logits)
        action_probs = tf.gather(probs, actions, axis=1, batch_dims=1)
        values = tf.squeeze(values)
        returns = get_expected_return(rewards, 0.99)
        loss = compute_loss(action_probs, values, returns)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    out.append(float(loss))
emit("losses", out)
emit("grads", grads)
