/** Path parameters for openapi-fetch, filled without running a pattern on each call. */

/** A path template split once: `parts[0] + value(names[0]) + parts[1] + …`. */
interface PathTemplate {
  parts: string[];
  names: string[];
}

function compileTemplate(url: string): PathTemplate {
  const parts: string[] = [];
  const names: string[] = [];
  const pattern = /\{([^{}]+)\}/g;
  let last = 0;
  for (let match = pattern.exec(url); match; match = pattern.exec(url)) {
    parts.push(url.slice(last, match.index));
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  parts.push(url.slice(last));
  return { parts, names };
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
    const { parts, names } = template;
    let filled = parts[0]!;
    for (let i = 0; i < names.length; i++) {
      const value = params[names[i]!];
      filled += (value === undefined || value === null ? `{${names[i]}}` : encode(String(value))) + parts[i + 1];
    }
    return filled;
  };
}
