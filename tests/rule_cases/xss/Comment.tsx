import DOMPurify from "dompurify";

export function Comment({ body }: { body: string }) {
  return (
    <article>
      {/* ruleid: xss */}
      <div dangerouslySetInnerHTML={{ __html: body }} />
      {/* ok: xss */}
      <div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(body) }} />
      {/* ok: xss */}
      <div>{body}</div>
    </article>
  );
}
