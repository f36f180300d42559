# Deep Q Network Method: keras-team/keras-io examples/rl/deep_q_network_cartpole.py, ported for the census (tools/census.py).
# source: keras-team/keras-io examples/rl/deep_q_network_cartpole.py
# commit: 74da57ba7456eefe489d7994655f21bbef73c2a5
# families: 
# changes (everything else is the source's code, its prose blocks left out; each
#   block of code between two prose blocks is a cell):
# - printed values and each cell's last value (shown by Jupyter) are recorded by the
#   census prelude's print/show; matplotlib is a recorder of what is plotted;
# - determinism (the census prelude, in both runs): NumPy's and Python's generators seeded;
#   tf.random.normal/uniform/truncated_normal/shuffle and Keras's random initializers draw from NumPy;
# - another library: gym is not installed with the tests: `import gym` is a stand-in of CartPole-v0's
#   dynamics (gym's equations and limits, its old reset/step/seed API), written in the program (the
#   stand-in of kio_ppo_cartpole);
# - sizes: batch_size 128 is 16; the loop "until solved" (`while True`) runs 4 episodes
#   (`while episode_count < 4`); added: the last running reward, the replay buffer's length and the
#   trained model's q-values of 3 states are shown; fit's shuffling is off (shuffle=False)
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
    class _Space:
        def __init__(self, shape=(), n=None):
            self.shape, self.n = shape, n
    @staticmethod
    def make(name):
        env = gym._CartPole()
        env.seed(0)     # (gym seeds an unseeded env from the OS: the census seeds it)
        env.observation_space, env.action_space = gym._Space((4,)), gym._Space((), 2)
        return env
import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers

# Configuration paramaters for the whole setup
seed = 42
gamma = 0.99  # Discount factor for past rewards
epsilon = 1.0  # epsilon greedy parameter
epsilon_min = 0.01  # minimum epsilon greedy parameter
epsilon_decay = 0.999  # rate at which to reduce chance of random action being taken
batch_size = 16  # size of batch taken from replay buffer
max_steps_per_episode = 10000
env = gym.make("CartPole-v0")  # Create the environment
env.seed(seed)
eps = np.finfo(np.float32).eps.item()  # Smallest number such that 1.0 + eps != 1.0

# [cell 2]
num_inputs = 4
num_actions = 2
num_hidden = 24

inputs = layers.Input(shape=(num_inputs,))
hidden_layer_1 = layers.Dense(num_hidden, activation="relu")(inputs)
hidden_layer_2 = layers.Dense(num_hidden, activation="relu")(hidden_layer_1)
action = layers.Dense(num_actions, activation="linear")(hidden_layer_2)

model = keras.Model(inputs=inputs, outputs=action)

# [cell 3]
optimizer = keras.optimizers.Adam(learning_rate=0.01)
mse_loss = keras.losses.MeanSquaredError()
model.compile(loss=mse_loss, optimizer=optimizer)

action_history = []
state_history = []
state_next_history = []
rewards_history = []
done_history = []
running_reward = 0
episode_count = 0

while episode_count < 4:  # Run until solved
    state = env.reset()
    episode_reward = 0

    for timestep in range(1, max_steps_per_episode):
        # env.render(); Adding this line would show the attempts
        # of the agent in a pop up window.

        state_tensor = tf.convert_to_tensor(state)
        state_tensor = tf.expand_dims(state_tensor, 0)

        # Predict action q-values
        # from environment state
        action_probs = model(state_tensor)

        # take best action
        action = np.argmax(action_probs[0])

        # use epsilon-greedy for exploration
        if epsilon > np.random.rand(1)[0]:
            # take random action
            action = np.random.choice(num_actions)

        # decay probability of taking random action
        epsilon *= epsilon_decay
        epsilon = max(epsilon_min, epsilon)

        # Apply the sampled action in our environment
        state_next, reward, done, _ = env.step(action)

        episode_reward += reward

        # save actions and states in replay buffer
        action_history.append(action)
        state_history.append(state)
        state_next_history.append(state_next)
        done_history.append(done)
        rewards_history.append(reward if not done else -1)
        state = state_next

        if len(done_history) > batch_size:
            # sample from history for replay
            indices = np.random.choice(range(len(state_history)), size=batch_size)

            state_sample = np.take(state_history, indices, axis=0)
            state_next_sample = np.take(state_next_history, indices, axis=0)
            rewards_sample = np.take(rewards_history, indices, axis=0)
            done_sample = np.take(done_history, indices, axis=0)
            action_sample = np.take(action_history, indices, axis=0)

            history = zip(
                state_sample,
                state_next_sample,
                rewards_sample,
                done_sample,
                action_sample,
            )

            updated_q_values = []
            for (
                sampled_state,
                sampled_state_next,
                sampled_reward,
                sampled_done,
                sampled_action,
            ) in history:

                q_update = sampled_reward
                if not sampled_done:
                    # Calculate the new q value
                    sampled_state_next = tf.convert_to_tensor(sampled_state_next)
                    sampled_state_next = tf.expand_dims(sampled_state_next, 0)
                    # q value = reward + discount factor * expected future reward
                    q_update = sampled_reward + gamma * np.amax(
                        model(sampled_state_next)[0]
                    )

                sampled_state = tf.convert_to_tensor(sampled_state)
                sampled_state = tf.expand_dims(sampled_state, 0)

                # replace old q value with the updated value
                q_value = np.array(model(sampled_state))[0]
                q_value[sampled_action] = q_update

                updated_q_values.append(q_value)

            # train the model on the states and updated q values
            model.fit(
                tf.convert_to_tensor(state_sample),
                tf.convert_to_tensor(updated_q_values),
                verbose=0,
                shuffle=False,
            )

            # limit the state and reward history
            mem = 100000
            if len(rewards_history) > mem:
                rewards_history = rewards_history[-mem:]
                state_history = state_history[-mem:]
                state_next_history = state_next_history[-mem:]
                action_history = action_history[-mem:]
                done_history = done_history[-mem:]

        if done:
            break
    # Update running reward to check condition for solving
    running_reward = 0.05 * episode_reward + (1 - 0.05) * running_reward

    # Log details
    episode_count += 1
    if episode_count % 10 == 0:
        template = "running reward: {:.2f} at episode {}"
        print(template.format(running_reward, episode_count))

    if running_reward > 195:  # Condition to consider the task solved
        print("Solved at episode {}!".format(episode_count))
        break
show(running_reward)
show(len(done_history))
show(model(tf.constant(np.array(state_history[:3]))))
