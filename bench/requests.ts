/**
 * The gateway benchmark's requests, free of side effects so a test can send them: a support-chat
 * turn of about 1 KB as a chat request and as a Responses request. The fake upstream echoes the
 * turn, so each answer is about as long.
 */

/** The customer's turn. */
export const prompt = `${"My order arrived damaged and the box was open. ".repeat(20)}What should I do next?`;

/** The turn as an OpenAI chat request. */
export const chatBody = JSON.stringify({ model: "gpt-bench", max_tokens: 256, messages: [{ role: "user", content: prompt }] });

/** The same turn and output limit as a Responses request. */
export const responsesBody = JSON.stringify({ model: "gpt-bench", max_output_tokens: 256, input: prompt });
