// The ACP registry's rules for `<id>/agent.json` and `icon.svg` (agentclientprotocol/registry:
// agent.schema.json, draft-07, plus the version and icon checks its build runs), encoded without a
// JSON-schema library. Every function returns the list of violations; empty means valid.

const PLATFORMS = [
  "darwin-aarch64",
  "darwin-x86_64",
  "linux-aarch64",
  "linux-x86_64",
  "windows-aarch64",
  "windows-x86_64",
];
const OS_FAMILIES = ["darwin", "linux", "windows"];
const INSTALLER = /\.(dmg|pkg|deb|rpm|msi|exe)$/i;
// SPDX identifiers and simple expressions ("MIT", "Apache-2.0", "MIT OR Apache-2.0").
const SPDX =
  /^(LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9][A-Za-z0-9.+-]*)( (AND|OR|WITH) (LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9][A-Za-z0-9.+-]*))*$/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isStringList = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");
const isStringMap = (value: unknown) =>
  isObject(value) && Object.values(value).every((item) => typeof item === "string");

function isUri(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

/** `dirName` is the registry folder the file would live in (the id must equal it). */
export function validateAgentManifest(doc: unknown, dirName?: string): string[] {
  const errors: string[] = [];
  if (!isObject(doc)) return ["root: must be an object"];
  for (const key of ["id", "name", "version", "description", "distribution"])
    if (!(key in doc)) errors.push(`${key}: required`);
  if ("id" in doc && (typeof doc.id !== "string" || !/^[a-z][a-z0-9-]*$/.test(doc.id)))
    errors.push("id: must match ^[a-z][a-z0-9-]*$");
  if (dirName !== undefined && doc.id !== dirName) errors.push(`id: must equal the folder name "${dirName}"`);
  for (const key of ["name", "description"])
    if (key in doc && (typeof doc[key] !== "string" || doc[key] === "")) errors.push(`${key}: non-empty string`);
  if ("version" in doc && (typeof doc.version !== "string" || !/^[0-9]+\.[0-9]+\.[0-9]+/.test(doc.version)))
    errors.push("version: must start with x.y.z");
  for (const key of ["repository", "website", "license_url"])
    if (key in doc && !isUri(doc[key])) errors.push(`${key}: must be a URI`);
  if ("authors" in doc && !isStringList(doc.authors)) errors.push("authors: list of strings");
  if (
    "license" in doc &&
    (typeof doc.license !== "string" || (doc.license !== "proprietary" && !SPDX.test(doc.license)))
  )
    errors.push(`license: SPDX identifier or "proprietary"`);
  if ("icon" in doc && typeof doc.icon !== "string") errors.push("icon: string");
  if ("distribution" in doc)
    errors.push(...validateDistribution(doc.distribution, typeof doc.version === "string" ? doc.version : undefined));
  return errors;
}

function validateDistribution(dist: unknown, version: string | undefined): string[] {
  if (!isObject(dist) || Object.keys(dist).length === 0)
    return ["distribution: object with at least one of binary, npx, uvx"];
  const errors: string[] = [];
  for (const key of Object.keys(dist))
    if (!["binary", "npx", "uvx"].includes(key)) errors.push(`distribution.${key}: not allowed`);
  for (const key of ["npx", "uvx"] as const) {
    if (!(key in dist)) continue;
    const target = dist[key];
    if (!isObject(target)) {
      errors.push(`distribution.${key}: object`);
      continue;
    }
    for (const field of Object.keys(target))
      if (!["package", "args", "env"].includes(field)) errors.push(`distribution.${key}.${field}: not allowed`);
    if (typeof target.package !== "string" || target.package === "")
      errors.push(`distribution.${key}.package: non-empty string required`);
    if ("args" in target && !isStringList(target.args)) errors.push(`distribution.${key}.args: list of strings`);
    if ("env" in target && !isStringMap(target.env)) errors.push(`distribution.${key}.env: string map`);
    if (typeof target.package === "string") {
      if (/@latest$/i.test(target.package))
        errors.push(`distribution.${key}.package: pin a version instead of @latest`);
      const pinned = key === "npx" ? npmVersion(target.package) : /[=@]+([\d.]+)/.exec(target.package)?.[1];
      if (pinned !== undefined && version !== undefined && pinned !== version)
        errors.push(`distribution.${key}.package: pinned ${pinned} but version is ${version}`);
    }
  }
  if ("binary" in dist) errors.push(...validateBinary(dist.binary, version));
  return errors;
}

function validateBinary(binary: unknown, version: string | undefined): string[] {
  if (!isObject(binary) || Object.keys(binary).length === 0) return ["distribution.binary: non-empty object"];
  const errors: string[] = [];
  for (const [platform, target] of Object.entries(binary)) {
    const at = `distribution.binary.${platform}`;
    if (!PLATFORMS.includes(platform)) errors.push(`${at}: unknown platform`);
    if (!isObject(target)) {
      errors.push(`${at}: object`);
      continue;
    }
    for (const field of Object.keys(target))
      if (!["archive", "sha256", "cmd", "args", "env"].includes(field)) errors.push(`${at}.${field}: not allowed`);
    if (!isUri(target.archive)) errors.push(`${at}.archive: URI required`);
    else if (INSTALLER.test(String(target.archive))) errors.push(`${at}.archive: installers are not supported`);
    else if (String(target.archive).includes("/latest/"))
      errors.push(`${at}.archive: use an explicit version, not /latest/`);
    else {
      const released = /\/(?:download|releases)\/v?(\d+\.\d+\.\d+)\//.exec(String(target.archive))?.[1];
      if (released !== undefined && version !== undefined && released !== version)
        errors.push(`${at}.archive: release ${released} but version is ${version}`);
    }
    if (typeof target.cmd !== "string") errors.push(`${at}.cmd: string required`);
    if ("sha256" in target && (typeof target.sha256 !== "string" || !/^[a-fA-F0-9]{64}$/.test(target.sha256)))
      errors.push(`${at}.sha256: 64 hex digits`);
    if ("args" in target && !isStringList(target.args)) errors.push(`${at}.args: list of strings`);
    if ("env" in target && !isStringMap(target.env)) errors.push(`${at}.env: string map`);
  }
  const families = new Set(
    Object.keys(binary)
      .filter((p) => PLATFORMS.includes(p))
      .map((p) => p.split("-")[0]),
  );
  for (const family of OS_FAMILIES)
    if (!families.has(family)) errors.push(`distribution.binary: no build for ${family}`);
  return errors;
}

/** `name@1.2.3` / `@scope/name@1.2.3` -> `1.2.3`; undefined when unpinned. */
export function npmVersion(spec: string): string | undefined {
  const at = spec.lastIndexOf("@");
  return at > 0 ? spec.slice(at + 1) : undefined;
}

const ALLOWED_PAINT = new Set(["currentcolor", "none", "inherit"]);
const PAINT = new Set(["fill", "stroke", "color", "stop-color", "flood-color", "lighting-color"]);

/** 16x16 square, monochrome: every fill/stroke (attribute, inline style or <style>) is currentColor, none or inherit. */
export function validateIcon(svg: string): string[] {
  const errors: string[] = [];
  const root = /<svg\b([^>]*)>/i.exec(svg);
  if (!root) return ["no <svg> element"];
  const attrs = parseAttributes(root[1]!);
  const viewBox = attrs.viewbox
    ?.trim()
    .split(/[\s,]+/)
    .map(Number);
  const width = attrs.width !== undefined ? Number.parseFloat(attrs.width) : viewBox?.[2];
  const height = attrs.height !== undefined ? Number.parseFloat(attrs.height) : viewBox?.[3];
  if (width === undefined || height === undefined || Number.isNaN(width) || Number.isNaN(height))
    errors.push("no width/height or viewBox");
  else if (width !== 16 || height !== 16) errors.push(`must be 16x16, is ${width}x${height}`);
  if (viewBox && (viewBox.length !== 4 || viewBox[2] !== viewBox[3])) errors.push("viewBox must be square");
  // Shapes without a fill are painted black; an explicit root fill makes the default themeable.
  if (attrs.fill === undefined)
    errors.push('the <svg> element needs fill="currentColor" or fill="none" (the default fill is black)');
  const paints: Array<{ where: string; value: string }> = [];
  for (const [, tag, text] of svg.matchAll(/<([A-Za-z][\w:-]*)\b([^>]*)>/g)) {
    const element = parseAttributes(text!);
    for (const [name, value] of Object.entries(element))
      if (PAINT.has(name)) paints.push({ where: `<${tag}> ${name}`, value });
    for (const [, name, value] of (element.style ?? "").matchAll(/([\w-]+)\s*:\s*([^;]+)/g)) {
      if (PAINT.has(name!.toLowerCase())) paints.push({ where: `<${tag}> style ${name}`, value: value! });
    }
  }
  for (const [, css] of svg.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)) {
    for (const [, name, value] of css!.matchAll(/([\w-]+)\s*:\s*([^;}]+)/g))
      if (PAINT.has(name!.toLowerCase())) paints.push({ where: `<style> ${name}`, value: value! });
  }
  for (const paint of paints) {
    if (!ALLOWED_PAINT.has(paint.value.trim().toLowerCase()))
      errors.push(`hard-coded color: ${paint.where} = ${paint.value.trim()}`);
  }
  if (/<(image|linearGradient|radialGradient|pattern)\b/i.test(svg))
    errors.push("images, gradients and patterns are not monochrome");
  if (!/currentColor/i.test(svg)) errors.push("must use currentColor");
  return errors;
}

function parseAttributes(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [, name, quoted1, quoted2] of text.matchAll(/([\w:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g))
    out[name!.toLowerCase()] = quoted1 ?? quoted2 ?? "";
  return out;
}
