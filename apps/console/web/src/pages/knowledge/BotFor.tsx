import type { Bot } from '../../api/types';
import { SelectInput } from '../../components/Fields';

/** Which bot new knowledge is for: every bot of the workspace (workspace-wide), or one. */
export function BotFor({ id, bots, value, onChange }: { id: string; bots: Bot[]; value: string; onChange: (v: string) => void }) {
  return (
    <SelectInput
      label="For"
      id={id}
      value={value}
      onChange={onChange}
      options={[{ value: '', label: 'Every bot (workspace-wide)' }, ...bots.map((b) => ({ value: b.id, label: b.name }))]}
    />
  );
}
