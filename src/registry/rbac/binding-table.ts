/**
 * The Table of RoleBindings and ClusterRoleBindings (upstream `printers.go` printRoleBinding): Name, Role, Age, and
 * the subjects by kind for `-o wide`.
 */
import type { TableColumnDefinition } from '../../apis/meta/v1/types.ts';
import type { RoleBinding } from '../../apis/rbac/v1/types.ts';
import { GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND } from '../../apis/rbac/v1/types.ts';
import { humanDuration } from '../../apimachinery/duration-human.ts';
import type { TableConvertor } from '../rest/table.ts';

const col = (name: string, description: string, priority = 0, format = ''): TableColumnDefinition => ({ name, type: 'string', format, description, priority });

export const BINDING_COLUMNS: TableColumnDefinition[] = [
  col('Name', 'Name, unique within a namespace. Cannot be updated.', 0, 'name'),
  col('Role', 'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.'),
  col('Age', 'When the object was created. Set by the server.'),
  col('Users', 'Users in the roleBinding', 1),
  col('Groups', 'Groups in the roleBinding', 1),
  col('ServiceAccounts', 'ServiceAccounts in the roleBinding', 1),
];

function age(time: string | null | undefined, nowMs: number): string {
  const t = time ? Date.parse(time) : NaN;
  return Number.isNaN(t) ? '<unknown>' : humanDuration(nowMs - t);
}

export function bindingCells(b: RoleBinding, nowMs: number): unknown[] {
  const users: string[] = [];
  const groups: string[] = [];
  const sas: string[] = [];
  for (const s of b.subjects ?? []) {
    if (s.kind === USER_KIND) users.push(s.name);
    else if (s.kind === GROUP_KIND) groups.push(s.name);
    else if (s.kind === SERVICE_ACCOUNT_KIND) sas.push(s.namespace ? `${s.namespace}:${s.name}` : s.name);
  }
  return [b.metadata.name ?? '', `${b.roleRef?.kind ?? ''}/${b.roleRef?.name ?? ''}`, age(b.metadata.creationTimestamp, nowMs), users.join(', '), groups.join(', '), sas.join(', ')];
}

export const BINDING_TABLE: TableConvertor<RoleBinding> = { columns: BINDING_COLUMNS, cells: bindingCells };
