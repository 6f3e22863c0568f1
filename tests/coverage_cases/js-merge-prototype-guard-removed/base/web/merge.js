function merge(into, from) {
  for (const key of Object.keys(from)) {
    if (key === "__proto__" || key === "constructor") continue;
    if (typeof from[key] === "object") {
      into[key] = merge(into[key] || {}, from[key]);
    } else {
      into[key] = from[key];
    }
  }
  return into;
}

module.exports = { merge };
