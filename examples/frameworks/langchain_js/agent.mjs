// A travel-desk agent on LangChain.js: `langchain`'s `createAgent` (a LangGraph graph) over
// `@langchain/openai`'s `ChatOpenAI`, speaking the `--agent-cmd` jsonl protocol.
//
//     node agent.mjs [--stream]
//
// Each stdin line is a turn, {"turn": 0, "user_input": "..."}; each answer is one stdout
// line, {"answer": "..."}. Each turn is one `agent.invoke`, or with --stream
// `agent.stream(..., { streamMode: "messages" })` over a streaming model; the graph runs
// the tools the model asks for and feeds each result back as a ToolMessage. A LangGraph
// checkpointer (`MemorySaver`) keeps the conversation from turn to turn (one thread).
// `ChatOpenAI` reads OPENAI_BASE_URL and OPENAI_API_KEY; the model is named by
// ZEROCLAW_EVAL_MODEL (the fixture's model_name under the gate).

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { ChatOpenAI } from "@langchain/openai";
import { createAgent } from "langchain";
import { z } from "zod";

const MODEL = process.env.ZEROCLAW_EVAL_MODEL ?? "gpt-4.1-mini";
const STREAM = process.argv.includes("--stream");
const SYSTEM_PROMPT = "You are a travel desk. Use get_weather for any weather question; save notes with save_note.";
const WEATHER = { paris: "sunny, 22 C", oslo: "light snow, -3 C", lima: "overcast, 18 C" };
const NOTES = "notes.txt"; // in the working directory: the case workspace under the gate

const getWeather = tool(
  async ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,
  { name: "get_weather", description: "The current weather in a city.", schema: z.object({ city: z.string() }) },
);

const saveNote = tool(
  async ({ text }) => {
    appendFileSync(NOTES, `${text}\n`, "utf8");
    return `saved to ${NOTES}`;
  },
  {
    name: "save_note",
    description: "Save a note for the traveller (appended to notes.txt).",
    schema: z.object({ text: z.string() }),
  },
);

// Offline, `streaming: true` is safe only under `streamMode: "messages"` (below): the model
// then streams through its callback path, its usage taken from the stream's last chunk
// (`streamUsage`, on by default, asks for `stream_options.include_usage`). A streaming
// ChatOpenAI run with `invoke` (or streamMode "updates" or "values") goes through its
// `_generate`, which afterwards estimates the usage with tiktoken and so downloads
// tiktoken's tables (tiktoken.pages.dev) at run time: offline that fetch is retried and
// the turn hangs. No ChatOpenAI option (`streamUsage` included) turns that estimate off.
const model = new ChatOpenAI({ model: MODEL, streaming: STREAM });
const agent = createAgent({
  model,
  tools: [getWeather, saveNote],
  systemPrompt: SYSTEM_PROMPT,
  checkpointer: new MemorySaver(),
});

/** Run one turn on the conversation's thread; the last message's text. */
async function answer(userInput, config) {
  const turn = { messages: [{ role: "user", content: userInput }] };
  if (STREAM) {
    for await (const [_token, _metadata] of await agent.stream(turn, { ...config, streamMode: "messages" })) {
      // a UI would render the tokens here
    }
    const { messages } = (await agent.getState(config)).values;
    return messages.at(-1).text;
  }
  const { messages } = await agent.invoke(turn, config);
  return messages.at(-1).text;
}

const config = { configurable: { thread_id: "zeroclaw_user" } }; // one conversation, one thread
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const text = await answer(JSON.parse(line).user_input, config);
  process.stdout.write(`${JSON.stringify({ answer: text })}\n`);
}
