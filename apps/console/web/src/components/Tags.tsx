/** A list of short values (scopes, event names) as tags; `titleOf` adds a tooltip to each. */
export function Tags({ items, titleOf }: { items: readonly string[]; titleOf?: (item: string) => string }) {
  return (
    <ul className="tags">
      {items.map((item) => (
        <li key={item} className="tag" title={titleOf?.(item)}>
          {item}
        </li>
      ))}
    </ul>
  );
}
