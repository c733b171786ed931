// A travel-desk agent on Mastra (`@mastra/core`): an `Agent` with two `createTool` tools
// and Mastra's own tool loop, speaking the `--agent-cmd` jsonl protocol.
//
//     node agent.mjs [--stream]
//
// Each stdin line is a turn, {"turn": 0, "user_input": "..."}; each answer is one stdout
// line, {"answer": "..."}. Each turn is one `agent.generate` call (`agent.stream` with
// --stream) with `maxSteps: 10`, Mastra running the tools the model asks for and feeding
// their results back; the conversation is carried from turn to turn with the run's
// `response.messages`. The model is Mastra's OpenAI-compatible config, `{ id, url, apiKey }`
// with `url` = OPENAI_BASE_URL and `apiKey` = OPENAI_API_KEY (Chat Completions); the model is
// named by ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { z } from "zod";

const MODEL = process.env.ZEROCLAW_EVAL_MODEL ?? "gpt-4.1-mini";
const STREAM = process.argv.includes("--stream");
const INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note.";
const WEATHER = { paris: "sunny, 22 C", oslo: "light snow, -3 C", lima: "overcast, 18 C" };
const NOTES = "notes.txt"; // in the working directory: the case workspace under the gate

const get_weather = createTool({
  id: "get_weather",
  description: "The current weather in a city.",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,
});

const save_note = createTool({
  id: "save_note",
  description: "Save a note for the traveller (appended to notes.txt).",
  inputSchema: z.object({ text: z.string() }),
  execute: async ({ text }) => {
    appendFileSync(NOTES, `${text}\n`, "utf8");
    return `saved to ${NOTES}`;
  },
});

const agent = new Agent({
  id: "travel-desk",
  name: "Travel desk",
  instructions: INSTRUCTIONS,
  // An OpenAI-compatible endpoint: OPENAI_BASE_URL, spoken to over Chat Completions.
  model: {
    id: `openai/${MODEL}`,
    url: process.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1",
    apiKey: process.env.OPENAI_API_KEY,
  },
  tools: { get_weather, save_note },
});

/** Answer one user turn with Mastra's tool loop; the conversation grows by its messages. */
async function answer(history, userInput) {
  history.push({ role: "user", content: userInput });
  const options = { maxSteps: 10 };
  if (STREAM) {
    const result = await agent.stream(history, options);
    for await (const _delta of result.textStream); // a UI would render the deltas here
    if (result.error) throw result.error; // a failed stream ends quietly; generate throws
    history.push(...(await result.response).messages);
    return await result.text;
  }
  const result = await agent.generate(history, options);
  history.push(...result.response.messages);
  return result.text;
}

const history = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const text = await answer(history, JSON.parse(line).user_input);
  process.stdout.write(`${JSON.stringify({ answer: text })}\n`);
}
