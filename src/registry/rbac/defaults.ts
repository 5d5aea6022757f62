/** upstream's rbac/v1 defaulters: roleRef and User/Group subjects get the RBAC group when they leave it out. */
import type { RoleBinding } from '../../apis/rbac/v1/types.ts';
import { GROUP, GROUP_KIND, USER_KIND } from '../../apis/rbac/v1/types.ts';

export function defaultBinding(b: RoleBinding): void {
  if (b.roleRef && !b.roleRef.apiGroup) b.roleRef.apiGroup = GROUP;
  for (const s of b.subjects ?? []) if (!s.apiGroup && (s.kind === USER_KIND || s.kind === GROUP_KIND)) s.apiGroup = GROUP;
}
