// Parse Mermaid diagrams with Mermaid's own parser (the one GitHub's renderer runs), offline.
//
//   node tests/support/mermaid_parse.mjs FOLDER < diagrams.json
//
// FOLDER holds node_modules with `mermaid` and `jsdom` (scripts/mermaid-parser.sh installs
// them). stdin: a JSON array of diagram texts; stdout: a JSON array, per diagram, of
// {"ok": false, "error": "…"}, or {"ok": true, "type": …, "config": …} and for a timeline what the parser
// read: its title, sections and periods ({section, text, events}), texts trimmed.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const folder = process.argv[2];
const load = (path) => import(pathToFileURL(join(folder, "node_modules", path)).href);
const { JSDOM } = await load("jsdom/lib/api.js");
// Mermaid's modules reach for a window and a document as they load, even to parse.
const dom = new JSDOM("<!doctype html><html><body></body></html>");
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await load("mermaid/dist/mermaid.core.mjs")).default;
mermaid.initialize({ startOnLoad: false });

const texts = JSON.parse(readFileSync(0, "utf8"));
const results = [];
for (const text of texts) {
  try {
    const parsed = await mermaid.parse(text);
    // `config`: what the block's own init directive set (its theme and colours).
    const result = { ok: true, type: parsed.diagramType, config: parsed.config ?? {} };
    if (parsed.diagramType === "timeline") {
      // The diagram as the renderer gets it: what the grammar made of each line.
      const { db } = await mermaid.mermaidAPI.getDiagramFromText(text);
      result.title = db.getCommonDb().getDiagramTitle().trim();
      result.sections = db.getSections().map((name) => name.trim());
      result.periods = db.getTasks().map((task) => ({
        section: task.section.trim(), text: task.task.trim(),
        events: task.events.map((event) => event.trim()),
      }));
    }
    results.push(result);
  } catch (error) {
    results.push({ ok: false, error: String(error && error.message ? error.message : error) });
  }
}
process.stdout.write(JSON.stringify(results) + "\n");
process.exit(0);
