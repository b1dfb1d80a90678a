// Guest-side setup, evaluated once per interpreter as a function expression and called with the
// host functions, so none of the host plumbing is reachable from user code by name. It installs
// console, timers, the clock guard, `tools` and `task`, and returns the helpers the host uses to
// settle and format results. Formatting runs inside the guest, where the values live: a getter
// that loops or a huge object is then bounded by the guest's own time and memory limits.

export type PreludeConfig = {
  /** `[callName, toolName]` pairs exposed as `tools.<callName>` (and non-enumerable `tools.<toolName>`). */
  tools: Array<[string, string]>;
  task: boolean;
  allowClock: boolean;
};

/** Names of the helpers the prelude returns. */
export const PRELUDE_HELPERS = ["settle", "format", "errorInfo", "fireTimer", "resetTimers"] as const;

export const PRELUDE_SOURCE = String.raw`(function (host, configJson) {
  "use strict";
  const config = JSON.parse(configJson);
  const G = globalThis;
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const fromEntries = Object.fromEntries;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const MapCtor = Map;
  const SetCtor = Set;
  const RegExpCtor = RegExp;
  const DataViewCtor = DataView;
  const isView = ArrayBuffer.isView;
  const arrayFrom = Array.from;
  const PromiseCtor = Promise;

  function define(name, value) {
    defineProperty(G, name, { value, writable: false, enumerable: false, configurable: false });
  }
  function defineWritable(name, value) {
    defineProperty(G, name, { value, writable: true, enumerable: false, configurable: true });
  }

  function errorText(e) {
    let name = "Error";
    let message = "";
    try { name = String(e.name); } catch (_) {}
    try { message = String(e.message); } catch (_) {}
    return message ? name + ": " + message : name;
  }

  function convert(v) {
    if (v instanceof ErrorCtor) return errorText(v);
    if (v instanceof MapCtor) {
      const entries = arrayFrom(v.entries());
      return entries.every((e) => typeof e[0] === "string") ? fromEntries(entries) : entries;
    }
    if (v instanceof SetCtor) return arrayFrom(v);
    if (isView(v) && !(v instanceof DataViewCtor)) return arrayFrom(v);
    if (v instanceof RegExpCtor) return String(v);
    return v;
  }

  function formatValue(value, indent) {
    if (typeof value === "string") return value;
    if (value === undefined) return "undefined";
    if (typeof value === "function") return "[Function: " + (value.name || "anonymous") + "]";
    if (typeof value === "bigint") return value + "n";
    if (typeof value === "symbol") return value.toString();
    if (value instanceof ErrorCtor) return errorText(value);
    // Ancestor chain for cycle detection: each entry is [original, what was serialized instead].
    const ancestors = [];
    const text = stringify(value, function (key, v) {
      if (typeof v === "bigint") return v + "n";
      if (typeof v === "function") return "[Function: " + (v.name || "anonymous") + "]";
      if (typeof v === "symbol") return v.toString();
      if (v === null || typeof v !== "object") return v;
      while (ancestors.length > 0 && ancestors[ancestors.length - 1][1] !== this) ancestors.pop();
      if (ancestors.some((a) => a[0] === v)) return "[Circular]";
      const out = convert(v);
      if (out !== null && typeof out === "object") ancestors.push([v, out]);
      return out;
    }, indent);
    return text === undefined ? String(value) : text;
  }

  function safeFormat(value, indent) {
    try {
      return formatValue(value, indent);
    } catch (e) {
      return "[value could not be formatted: " + errorText(e) + "]";
    }
  }

  function emit(level, args) {
    let text;
    try {
      text = args.map((a) => (typeof a === "string" ? a : safeFormat(a, undefined))).join(" ");
    } catch (e) {
      text = "[console arguments could not be formatted: " + errorText(e) + "]";
    }
    host.log(level, text);
  }

  function reportUncaught(e) {
    host.log("error", "Uncaught " + (e instanceof ErrorCtor ? errorText(e) : safeFormat(e, undefined)));
  }

  const consoleObject = {};
  for (const level of ["log", "info", "debug", "warn", "error"]) {
    consoleObject[level] = function (...args) { emit(level, args); };
  }
  consoleObject.dir = consoleObject.log;
  consoleObject.table = consoleObject.log;
  consoleObject.trace = consoleObject.debug;
  defineWritable("console", consoleObject);

  if (!config.allowClock) {
    const RealDate = Date;
    const clockError = () => new ErrorCtor(
      "The clock is disabled in this interpreter: Date.now() and new Date() without arguments are not available " +
      "(config.toml: interpreter.allow_clock). Dates built from explicit values work."
    );
    const SafeDate = function Date(...args) {
      if (new.target === undefined || args.length === 0) throw clockError();
      return Reflect.construct(RealDate, args, new.target);
    };
    SafeDate.prototype = RealDate.prototype;
    defineProperty(RealDate.prototype, "constructor", { value: SafeDate, writable: true, configurable: true, enumerable: false });
    SafeDate.UTC = RealDate.UTC;
    SafeDate.parse = RealDate.parse;
    SafeDate.now = function now() { throw clockError(); };
    defineWritable("Date", SafeDate);
  }

  // Timers live only as long as the eval that created them: the host cancels the rest when it ends.
  const timers = new MapCtor();
  let nextTimerId = 1;
  function addTimer(fn, ms, args, repeat) {
    if (typeof fn !== "function") throw new TypeErrorCtor("The timer callback must be a function");
    const id = nextTimerId++;
    timers.set(id, { fn, args, repeat });
    host.setTimer(id, Math.max(0, Number(ms) || 0), repeat);
    return id;
  }
  function clearTimer(id) {
    if (timers.delete(id)) host.clearTimer(id);
  }
  defineWritable("setTimeout", function setTimeout(fn, ms, ...args) { return addTimer(fn, ms, args, false); });
  defineWritable("setInterval", function setInterval(fn, ms, ...args) { return addTimer(fn, ms, args, true); });
  defineWritable("clearTimeout", function clearTimeout(id) { clearTimer(id); });
  defineWritable("clearInterval", function clearInterval(id) { clearTimer(id); });
  defineWritable("queueMicrotask", function queueMicrotask(fn) {
    if (typeof fn !== "function") throw new TypeErrorCtor("queueMicrotask expects a function");
    PromiseCtor.resolve().then(() => fn()).catch(reportUncaught);
  });

  const toolsNamespace = {};
  for (const [callName, toolName] of config.tools) {
    const call = {
      [callName]: async function (input) {
        const json = stringify(input === undefined ? {} : input);
        return host.callTool(callName, json === undefined ? "null" : json);
      },
    }[callName];
    toolsNamespace[callName] = call;
    if (toolName !== callName && !(toolName in toolsNamespace)) {
      defineProperty(toolsNamespace, toolName, { value: call, enumerable: false });
    }
  }
  define("tools", freeze(toolsNamespace));

  if (config.task) {
    const task = async function task(request) {
      const json = stringify(request === undefined ? null : request);
      const text = await host.runTask(json === undefined ? "null" : json);
      const schema = request !== null && typeof request === "object"
        ? (request.responseSchema !== undefined ? request.responseSchema : request.response_schema)
        : undefined;
      if (schema === undefined) return text;
      try {
        return parseJson(text);
      } catch (_) {
        throw new ErrorCtor("task() answer is not valid JSON although a responseSchema was given: " + text.slice(0, 300));
      }
    };
    define("task", freeze(task));
  }

  return {
    settle: async function settle(completion) {
      const result = await completion;
      return await result.value;
    },
    // Indented JSON while it fits the output budget, compact JSON when it would not.
    format: function format(value, budget) {
      const pretty = safeFormat(value, 2);
      return pretty.length <= budget || typeof value === "string" ? pretty : safeFormat(value, undefined);
    },
    errorInfo: function errorInfo(e) {
      if (e instanceof ErrorCtor || (e !== null && typeof e === "object" && typeof e.name === "string" && typeof e.message === "string")) {
        let stack = "";
        try { stack = typeof e.stack === "string" ? e.stack : ""; } catch (_) {}
        let name = "Error";
        let message = "";
        try { name = String(e.name); } catch (_) {}
        try { message = String(e.message); } catch (_) {}
        return stringify({ name, message, stack });
      }
      return stringify({ name: "Uncaught", message: safeFormat(e, undefined), nullish: e === null || e === undefined });
    },
    fireTimer: function fireTimer(id) {
      const timer = timers.get(id);
      if (!timer) return;
      if (!timer.repeat) timers.delete(id);
      try { timer.fn(...timer.args); } catch (e) { reportUncaught(e); }
    },
    resetTimers: function resetTimers() { timers.clear(); },
  };
})`;
