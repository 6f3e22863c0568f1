const HOSTS = new Set(["app.example.com"]);

function afterLogin(res, next) {
  const target = new URL(next, "https://app.example.com");
  return res.redirect(target.toString());
}

module.exports = { afterLogin };
