// A travel-desk agent on the official `openai` npm client, with a tool loop of its own,
// speaking the `--agent-cmd` jsonl protocol.
//
//     node agent.mjs [--stream]
//
// Each stdin line is a turn, {"turn": 0, "user_input": "..."}; each answer is one stdout
// line, {"answer": "..."}. The loop asks Chat Completions (streamed with --stream), runs
// every tool call the model asks for, feeds each result back as a `tool` message and
// stops at a text answer; the conversation is kept from turn to turn. The client reads
// OPENAI_BASE_URL and OPENAI_API_KEY; the model is named by ZEROCLAW_EVAL_MODEL (the
// fixture's model_name under the gate).

import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

import OpenAI from "openai";

const MODEL = process.env.ZEROCLAW_EVAL_MODEL ?? "gpt-4.1-mini";
const STREAM = process.argv.includes("--stream");
const MAX_TOOL_ROUNDS = 10;
const SYSTEM_PROMPT =
  "You are a travel desk. Use get_weather for any weather question; save notes with save_note.";
const WEATHER = { paris: "sunny, 22 C", oslo: "light snow, -3 C", lima: "overcast, 18 C" };
const NOTES = "notes.txt"; // in the working directory: the case workspace under the gate

const TOOLS = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "The current weather in a city.",
      parameters: {
        type: "object",
        properties: { city: { type: "string" } },
        required: ["city"],
      },
    },
  },
  {
    type: "function",
    function: {
      name: "save_note",
      description: "Save a note for the traveller (appended to notes.txt).",
      parameters: {
        type: "object",
        properties: { text: { type: "string" } },
        required: ["text"],
      },
    },
  },
];

const HANDLERS = {
  get_weather: ({ city }) => WEATHER[city.trim().toLowerCase()] ?? `Error: no weather data for ${city}`,
  save_note: ({ text }) => {
    appendFileSync(NOTES, `${text}\n`, "utf8");
    return `saved to ${NOTES}`;
  },
};

/** The result text of one tool call; a failure is a result that says so, never a crash. */
function runTool(call) {
  const handler = HANDLERS[call.function.name];
  if (handler === undefined) return `Error: no tool named ${call.function.name}`;
  try {
    return String(handler(JSON.parse(call.function.arguments || "{}")));
  } catch (error) {
    return `Error: ${error.message}`;
  }
}

/** One model reply as an assistant message: {role, content, tool_calls?}. */
async function complete(client, messages) {
  const request = { model: MODEL, messages, tools: TOOLS };
  if (!STREAM) {
    const { content, tool_calls } = (await client.chat.completions.create(request)).choices[0].message;
    return { role: "assistant", content, ...(tool_calls?.length ? { tool_calls } : {}) };
  }
  const stream = await client.chat.completions.create({
    ...request,
    stream: true,
    stream_options: { include_usage: true },
  });
  let content = "";
  const calls = [];
  for await (const chunk of stream) {
    for (const { delta } of chunk.choices) {
      content += delta.content ?? "";
      for (const part of delta.tool_calls ?? []) {
        calls[part.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } };
        const call = calls[part.index];
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name = part.function.name;
        call.function.arguments += part.function?.arguments ?? "";
      }
    }
  }
  return calls.length
    ? { role: "assistant", content: content || null, tool_calls: calls }
    : { role: "assistant", content };
}

/** Answer one user turn: ask, run the tools asked for, feed each result back, repeat. */
async function answer(client, history, userInput) {
  history.push({ role: "user", content: userInput });
  for (let round = 0; round <= MAX_TOOL_ROUNDS; round++) {
    const message = await complete(client, history);
    history.push(message);
    if (!message.tool_calls) return message.content ?? "";
    for (const call of message.tool_calls) {
      history.push({ role: "tool", tool_call_id: call.id, content: runTool(call) });
    }
  }
  throw new Error(`the model still asks for tools after ${MAX_TOOL_ROUNDS} rounds`);
}

const client = new OpenAI(); // OPENAI_BASE_URL and OPENAI_API_KEY from the environment
const history = [{ role: "system", content: SYSTEM_PROMPT }];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  const text = await answer(client, history, JSON.parse(line).user_input);
  process.stdout.write(`${JSON.stringify({ answer: text })}\n`);
}
