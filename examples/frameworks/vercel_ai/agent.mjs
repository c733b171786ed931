// A travel-desk agent on the Vercel AI SDK (`ai` with `@ai-sdk/openai` and
// `@ai-sdk/anthropic`), as shipped: the SDK's own tool loop, its providers' defaults,
// speaking the `--agent-cmd` jsonl protocol.
//
//     node agent.mjs [--stream] [--api responses|chat|anthropic]
//
// Each stdin line is a turn, {"turn": 0, "user_input": "..."}; each answer is one stdout
// line, {"answer": "..."}. Each turn is one `generateText` call (`streamText` with
// --stream) with the two tools and `stopWhen: isStepCount(10)`, the SDK running the tools
// the model asks for; the conversation is carried from turn to turn with
// `responseMessages` (every step's messages; `response.messages` holds the last step's
// only, since ai 7). The model is `openai(MODEL)` (the Responses API, the provider's
// default), `openai.chat(MODEL)` (Chat Completions) or `anthropic(MODEL)` (Messages); the
// providers read OPENAI_BASE_URL / OPENAI_API_KEY and ANTHROPIC_BASE_URL /
// ANTHROPIC_API_KEY, and the model is named by ZEROCLAW_EVAL_MODEL (the fixture's
// model_name under the gate).

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";

import { anthropic } from "@ai-sdk/anthropic";
import { openai } from "@ai-sdk/openai";
import { generateText, isStepCount, streamText, tool } from "ai";
import { z } from "zod";

const { values: flags } = parseArgs({
  options: { stream: { type: "boolean", default: false }, api: { type: "string", default: "responses" } },
});
const MODEL_NAME = process.env.ZEROCLAW_EVAL_MODEL ?? "gpt-4.1-mini";
const MODELS = {
  responses: () => openai(MODEL_NAME),
  chat: () => openai.chat(MODEL_NAME),
  anthropic: () => anthropic(MODEL_NAME),
};
if (!(flags.api in MODELS)) throw new Error(`--api must be one of ${Object.keys(MODELS).join(", ")}`);
const model = MODELS[flags.api]();
const INSTRUCTIONS = "You are a travel desk. Use get_weather for any weather question; save notes with save_note.";
const WEATHER = { paris: "sunny, 22 C", oslo: "light snow, -3 C", lima: "overcast, 18 C" };
const NOTES = "notes.txt"; // in the working directory: the case workspace under the gate

const tools = {
  get_weather: tool({
    description: "The current weather in a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,
  }),
  save_note: tool({
    description: "Save a note for the traveller (appended to notes.txt).",
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => {
      appendFileSync(NOTES, `${text}\n`, "utf8");
      return `saved to ${NOTES}`;
    },
  }),
};

/** Answer one user turn with the SDK's tool loop; the conversation grows by its messages. */
async function answer(history, userInput) {
  history.push({ role: "user", content: userInput });
  const request = { model, instructions: INSTRUCTIONS, messages: history, tools, stopWhen: isStepCount(10) };
  if (flags.stream) {
    const result = streamText(request);
    for await (const _delta of result.textStream); // a UI would render the deltas here
    history.push(...(await result.responseMessages));
    return await result.text;
  }
  const result = await generateText(request);
  history.push(...result.responseMessages);
  return result.text;
}

const history = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const text = await answer(history, JSON.parse(line).user_input);
  process.stdout.write(`${JSON.stringify({ answer: text })}\n`);
}
