// The XML scanner under the UI tree: walks a uiautomator dump's tags by hand (no XML dependency),
// linear in the dump's size, and hands each <node>'s attributes and nesting depth to its caller.

/**
 * Calls `visit` for every <node> start tag, in document order, with its attributes (entities
 * decoded) and its depth among <node> elements. Skips declarations, comments and CDATA. Never
 * throws on malformed input: a cut-off tag yields what was read of it.
 */
export function forEachNode(
  xml: string,
  visit: (attributes: Map<string, string>, depth: number) => void,
): void {
  const n = xml.length;
  let depth = 0;
  let pos = 0;
  while (pos < n) {
    const lt = xml.indexOf("<", pos);
    if (lt < 0) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === 0x3f /* ? */) {
      pos = skipPast(xml, "?>", lt + 2);
      continue;
    }
    if (next === 0x21 /* ! */) {
      if (xml.startsWith("<!--", lt)) pos = skipPast(xml, "-->", lt + 4);
      else if (xml.startsWith("<![CDATA[", lt)) pos = skipPast(xml, "]]>", lt + 9);
      else pos = skipPast(xml, ">", lt + 2);
      continue;
    }
    if (next === 0x2f /* / */) {
      const gt = xml.indexOf(">", lt + 2);
      if (gt < 0) break;
      if (xml.slice(lt + 2, gt).trim() === "node" && depth > 0) depth--;
      pos = gt + 1;
      continue;
    }
    const tag = scanStartTag(xml, lt);
    pos = tag.end;
    if (tag.name !== "node") continue;
    visit(tag.attributes, depth);
    if (!tag.selfClosing) depth++;
  }
}

function skipPast(xml: string, marker: string, from: number): number {
  const at = xml.indexOf(marker, from);
  return at < 0 ? xml.length : at + marker.length;
}

interface StartTag {
  name: string;
  attributes: Map<string, string>;
  selfClosing: boolean;
  end: number;
}

/** XML's white space (the S production): space, tab, CR and LF only. */
function isXmlSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

// Reads `<name a="…" b='…' …>` starting at `lt`. Quoted values may hold `>`; a tag cut off
// by the end of the input yields what was read so far.
function scanStartTag(xml: string, lt: number): StartTag {
  const n = xml.length;
  let i = lt + 1;
  while (i < n) {
    const c = xml.charCodeAt(i);
    if (isXmlSpace(c) || c === 0x2f || c === 0x3e) break;
    i++;
  }
  const name = xml.slice(lt + 1, i);
  const attributes = new Map<string, string>();
  while (i < n) {
    let c = xml.charCodeAt(i);
    if (isXmlSpace(c)) {
      i++;
      continue;
    }
    if (c === 0x3e /* > */) return { name, attributes, selfClosing: false, end: i + 1 };
    if (c === 0x2f /* / */ && xml.charCodeAt(i + 1) === 0x3e) {
      return { name, attributes, selfClosing: true, end: i + 2 };
    }
    if (c === 0x3c /* < */) return { name, attributes, selfClosing: true, end: i };
    const nameStart = i;
    while (i < n) {
      c = xml.charCodeAt(i);
      if (c === 0x3d || isXmlSpace(c) || c === 0x3e || c === 0x2f || c === 0x3c) break;
      i++;
    }
    const attr = xml.slice(nameStart, i);
    while (i < n && isXmlSpace(xml.charCodeAt(i))) i++;
    if (xml.charCodeAt(i) !== 0x3d /* = */) {
      if (i === nameStart) i++; // a stray "/" or similar: step over it
      continue;
    }
    i++;
    while (i < n && isXmlSpace(xml.charCodeAt(i))) i++;
    const quote = xml.charCodeAt(i);
    if (quote === 0x22 || quote === 0x27) {
      const close = xml.indexOf(quote === 0x22 ? '"' : "'", i + 1);
      if (close < 0) return { name, attributes, selfClosing: true, end: n };
      attributes.set(attr, decodeEntities(xml.slice(i + 1, close)));
      i = close + 1;
    } else {
      const valueStart = i;
      while (i < n && !isXmlSpace(xml.charCodeAt(i)) && xml.charCodeAt(i) !== 0x3e) i++;
      attributes.set(attr, decodeEntities(xml.slice(valueStart, i)));
    }
  }
  return { name, attributes, selfClosing: true, end: n };
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

// Surrogate halves are accepted one by one: some serializers write an emoji as two
// numeric references (&#55357;&#56832;), which join back into one character. Android's own
// KXmlSerializer does so for every UTF-16 unit above 126 when its output is not a UTF encoding:
// https://github.com/CyanogenMod/android_libcore/blob/ccedfac1d04b7f9c4df4a144f80283f7af69a9d6/xml/src/main/java/org/kxml2/io/KXmlSerializer.java
function decodeEntities(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.charCodeAt(0) !== 0x23 /* # */) return NAMED_ENTITIES[body] ?? whole;
    const hex = body[1] === "x" || body[1] === "X";
    const code = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
