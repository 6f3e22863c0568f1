import jwt from "jsonwebtoken";

const publicKey = process.env.JWT_PUBLIC_KEY ?? "";

export function check(token: string) {
  // ruleid: jwt-verification-disabled
  const a = jwt.verify(token, publicKey, { algorithms: ["none"] });
  // ok: jwt-verification-disabled
  const b = jwt.verify(token, publicKey, { algorithms: ["RS256"] });
  // ruleid: jwt-verification-disabled
  const c = jwt.verify(token, publicKey, { algorithms: ["RS256"], ignoreExpiration: true });
  // match: jwt-verification-disabled
  const d = jwt.decode(token);
  return [a, b, c, d];
}
