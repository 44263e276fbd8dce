/** Path parameters for openapi-fetch, filled without running a pattern on each call. */

/** A path template split once: `head`, then each parameter's value followed by the text after it. */
interface PathTemplate {
  head: string;
  slots: { name: string; after: string }[];
}

function compileTemplate(url: string): PathTemplate {
  const pieces = url.split(/\{([^{}]+)\}/);
  // split with one capture group alternates text and name: [text, name, text, name, …, text].
  const slots: PathTemplate['slots'] = [];
  for (let i = 1; i < pieces.length; i += 2) slots.push({ name: pieces[i] ?? '', after: pieces[i + 1] ?? '' });
  return { head: pieces[0] ?? '', slots };
}

export type PathSerializer = (url: string, params: Record<string, unknown>) => string;

/**
 * A path serializer for openapi-fetch: fills `{name}` with `encode(value)`; a parameter not given
 * keeps its `{name}`. openapi-fetch's default handles every OpenAPI path style; the service's paths
 * use only the simple one, so each template is split once (a few per client) and then filled by
 * concatenation, with no pattern to run on each call and no `$&`-style replacement patterns.
 */
export function pathSerializer(encode: (value: string) => string): PathSerializer {
  const templates = new Map<string, PathTemplate>();
  return (url, params) => {
    let template = templates.get(url);
    if (!template) {
      template = compileTemplate(url);
      templates.set(url, template);
    }
    let filled = template.head;
    for (const { name, after } of template.slots) {
      const value = params[name];
      filled += (value === undefined || value === null ? `{${name}}` : encode(String(value))) + after;
    }
    return filled;
  };
}
