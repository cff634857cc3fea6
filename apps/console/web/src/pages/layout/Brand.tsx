export function Brand() {
  return (
    <span className="brand">
      <svg className="brand__mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">
        <rect width="32" height="32" rx="7" />
        <path d="M9 11h14v8H15l-4 4v-4H9z" />
      </svg>
      <span className="brand__name">Support Agent</span>
      <span className="brand__product">Console</span>
    </span>
  );
}
