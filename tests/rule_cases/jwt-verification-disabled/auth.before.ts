import jwt from "jsonwebtoken";

const PUBLIC_KEY = process.env.JWT_PUBLIC_KEY ?? "";

export function authenticate(req: any, res: any, next: () => void) {
  const token = req.headers.authorization?.slice(7) ?? "";
  try {
    // ruleid: jwt-verification-disabled
    req.user = jwt.verify(token, PUBLIC_KEY, { algorithms: ["RS256"] });
    next();
  } catch {
    res.status(401).end();
  }
}
