const HOSTS = new Set(["app.example.com"]);

function afterLogin(res, next) {
  const target = new URL(next, "https://app.example.com");
  if (!HOSTS.has(target.host)) {
    return res.status(400).end();
  }
  return res.redirect(target.toString());
}

module.exports = { afterLogin };
