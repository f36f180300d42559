# Actor Critic Method: keras-team/keras-io examples/rl/actor_critic_cartpole.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/rl/actor_critic_cartpole.py
# commit: 0df30d775727a6789b7bdb4028561f2026cc4d52
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - another library: gym is not installed with the tests: `import gym` is a stand-in of CartPole-v0's
#   dynamics (gym's equations and limits, its old reset/step/seed API), written in the program;
# - sizes: num_hidden 128 is 16, max_steps_per_episode 10000 is 40; the loop runs until solved or for 10 episodes
#   (an added `if episode_count >= 10: break`); each episode's reward and loss are printed every
#   episode (the source prints the running reward every 10 episodes, which it keeps)
#

# [cell 1]
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
    make = staticmethod(lambda name: gym._CartPole())
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

# Configuration parameters for the whole setup
seed = 42
gamma = 0.99  # Discount factor for past rewards
max_steps_per_episode = 40
env = gym.make("CartPole-v0")  # Create the environment
env.seed(seed)
eps = np.finfo(np.float32).eps.item()  # Smallest number such that 1.0 + eps != 1.0

# [cell 2]
num_inputs = 4
num_actions = 2
num_hidden = 16

inputs = layers.Input(shape=(num_inputs,))
common = layers.Dense(num_hidden, activation="relu")(inputs)
action = layers.Dense(num_actions, activation="softmax")(common)
critic = layers.Dense(1)(common)

model = keras.Model(inputs=inputs, outputs=[action, critic])

# [cell 3]
optimizer = keras.optimizers.Adam(learning_rate=0.01)
huber_loss = keras.losses.Huber()
action_probs_history = []
critic_value_history = []
rewards_history = []
running_reward = 0
episode_count = 0

while True:  # Run until solved
    state = env.reset()
    episode_reward = 0
    with tf.GradientTape() as tape:
        for timestep in range(1, max_steps_per_episode):
            # env.render(); Adding this line would show the attempts
            # of the agent in a pop up window.

            state = tf.convert_to_tensor(state)
            state = tf.expand_dims(state, 0)

            # Predict action probabilities and estimated future rewards
            # from environment state
            action_probs, critic_value = model(state)
            critic_value_history.append(critic_value[0, 0])

            # Sample action from action probability distribution
            action = np.random.choice(num_actions, p=np.squeeze(action_probs))
            action_probs_history.append(tf.math.log(action_probs[0, action]))

            # Apply the sampled action in our environment
            state, reward, done, _ = env.step(action)
            rewards_history.append(reward)
            episode_reward += reward

            if done:
                break

        # Update running reward to check condition for solving
        running_reward = 0.05 * episode_reward + (1 - 0.05) * running_reward

        # Calculate expected value from rewards
        # - At each timestep what was the total reward received after that timestep
        # - Rewards in the past are discounted by multiplying them with gamma
        # - These are the labels for our critic
        returns = []
        discounted_sum = 0
        for r in rewards_history[::-1]:
            discounted_sum = r + gamma * discounted_sum
            returns.insert(0, discounted_sum)

        # Normalize
        returns = np.array(returns)
        returns = (returns - np.mean(returns)) / (np.std(returns) + eps)
        returns = returns.tolist()

        # Calculating loss values to update our network
        history = zip(action_probs_history, critic_value_history, returns)
        actor_losses = []
        critic_losses = []
        for log_prob, value, ret in history:
            # (the original's comments here left out of this copy)
            diff = ret - value
            actor_losses.append(-log_prob * diff)  # actor loss

            # The critic must be updated so that it predicts a better estimate of
            # the future rewards.
            critic_losses.append(
                huber_loss(tf.expand_dims(value, 0), tf.expand_dims(ret, 0))
            )

        # Backpropagation
        loss_value = sum(actor_losses) + sum(critic_losses)
        grads = tape.gradient(loss_value, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))

        # Clear the loss and reward history
        action_probs_history.clear()
        critic_value_history.clear()
        rewards_history.clear()

    print(episode_reward, float(loss_value))
    # Log details
    episode_count += 1
    if episode_count % 10 == 0:
        template = "running reward: {:.2f} at episode {}"
        print(template.format(running_reward, episode_count))

    if running_reward > 195:  # Condition to consider the task solved
        print("Solved at episode {}!".format(episode_count))
        break
    if episode_count >= 10:
        break
