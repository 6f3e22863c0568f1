export function showResult(result, data) {
  if (data.ok) {
    // ok: xss
    result.innerHTML = '<span class="ok">&#10003; Connected</span><br><em>' + data.text.replace(/</g, '&lt;') + '</em>';
  } else {
    // ok: xss
    result.innerHTML = '<span class="bad">&#10007; Failed</span><br><code>' + (data.error || '').replace(/</g, '&lt;') + '</code>';
  }
}

export function showError(result, err) {
  // ok: xss
  result.innerHTML = '<b>Request failed</b>: ' + String(err.message).replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

export function showTitle(result, title, hint) {
  // ruleid: xss
  result.innerHTML = '<a title="' + title.replace(/</g, '&lt;') + '">' + hint + '</a>';
  // ruleid: xss
  result.innerHTML = '<b>' + title.replace(/</g, '&lt;') + '</b>' + hint;
  // ruleid: xss
  result.innerHTML = '<b>' + title.replace(/>/g, '&gt;') + '</b>';
}
