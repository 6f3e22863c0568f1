// ruleid: unsafe-deserialization
const serialize = require("node-serialize");

function readProfile(req, res) {
  const raw = Buffer.from(req.cookies.profile, "base64").toString();
  // ruleid: unsafe-deserialization
  const profile = serialize.unserialize(raw);
  // ok: unsafe-deserialization
  const prefs = JSON.parse(req.body.prefs);
  res.json({ name: profile.name, prefs });
}

module.exports = readProfile;
