/**
 * Streaming XML to small element trees: the file goes through `saxes` a chunk at a time, and
 * each element the caller names (`isRecord`) is handed over, whole, as soon as it closes;
 * nothing else is kept. Memory is one chunk plus the records of that chunk.
 */
import { SaxesParser } from 'saxes';
import type { FileInput } from './file-input.js';

/** An element: its attributes, its text (CDATA included) and its child elements by name. */
export interface XmlNode {
  readonly name: string;
  readonly attrs: Readonly<Record<string, string>>;
  text: string;
  readonly children: XmlNode[];
}

/** The first child named `name`. */
export function child(node: XmlNode, name: string): XmlNode | undefined {
  return node.children.find((c) => c.name === name);
}

/** The trimmed text of the first child named `name` ('' when absent). */
export function childText(node: XmlNode, name: string): string {
  return child(node, name)?.text.trim() ?? '';
}

/** Whether the child's text is "true" or "1". */
export function childFlag(node: XmlNode, name: string): boolean {
  const text = childText(node, name).toLowerCase();
  return text === 'true' || text === '1';
}

/**
 * The elements for which `isRecord(name, depth)` holds (depth 1 is the root's children), each
 * yielded once closed. A malformed file ends the iteration with the parser's error.
 */
export async function* xmlRecords(input: FileInput, isRecord: (name: string, depth: number, parent: string | undefined) => boolean): AsyncGenerator<XmlNode> {
  const parser = new SaxesParser({ xmlns: false });
  const done: XmlNode[] = [];
  const stack: XmlNode[] = [];
  /** Open elements' names, recorded or not, for depth. */
  const names: string[] = [];
  let building = 0;
  let failure: Error | undefined;
  parser.on('opentag', (tag) => {
    const depth = names.length;
    const parent = names[names.length - 1];
    names.push(tag.name);
    if (building > 0 || isRecord(tag.name, depth, parent)) {
      const node: XmlNode = { name: tag.name, attrs: tag.attributes as Record<string, string>, text: '', children: [] };
      if (building > 0) stack[stack.length - 1]!.children.push(node);
      stack.push(node);
      building++;
    }
  });
  const addText = (text: string) => {
    if (building > 0) stack[stack.length - 1]!.text += text;
  };
  parser.on('text', addText);
  parser.on('cdata', addText);
  parser.on('closetag', () => {
    names.pop();
    if (building === 0) return;
    const node = stack.pop()!;
    building--;
    if (building === 0) done.push(node);
  });
  parser.on('error', (err) => {
    failure ??= err;
  });
  input.stream.setEncoding('utf8');
  for await (const chunk of input.stream) {
    parser.write(chunk as string);
    if (failure !== undefined) throw failure;
    while (done.length > 0) yield done.shift()!;
  }
  parser.close();
  if (failure !== undefined) throw failure;
  while (done.length > 0) yield done.shift()!;
}
