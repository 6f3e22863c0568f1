const crypto = require("crypto");

function protect(password, key, iv, fileBuffer) {
  // ruleid: weak-cryptography
  const hash = crypto.createHash("sha1").update(password).digest("hex");
  // ruleid: weak-cryptography
  const cipher = crypto.createCipher("aes-256-cbc", key);
  // ok: weak-cryptography
  const cipher2 = crypto.createCipheriv("aes-256-gcm", key, iv);
  // ruleid: weak-cryptography
  const des = crypto.createCipheriv("des-ede3-cbc", key, iv);
  // ruleid: weak-cryptography
  const ecb = crypto.createCipheriv("aes-128-ecb", key, null);
  // ruleid: weak-cryptography
  const pair = crypto.generateKeyPairSync("rsa", { modulusLength: 1024 });
  // ok: weak-cryptography
  const checksum = crypto.createHash("sha256").update(fileBuffer).digest("hex");
  // ruleid: weak-cryptography
  const signer = crypto.createSign("RSA-SHA1");
  // ok: weak-cryptography
  const signer256 = crypto.createSign("RSA-SHA256");
  return { signer, signer256, hash, cipher, cipher2, des, ecb, pair, checksum };
}

module.exports = protect;
