function merge(into, from) {
  for (const key of Object.keys(from)) {
    if (typeof from[key] === "object") {
      into[key] = merge(into[key] || {}, from[key]);
    } else {
      into[key] = from[key];
    }
  }
  return into;
}

module.exports = { merge };
