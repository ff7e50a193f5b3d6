/**
 * The config layer's public face: load a layout file into a `NormalizedLayout`, or get its errors
 * as `file:line:col` values. Nothing below this folder knows about terminals, panes or processes.
 */
export { formatErrors, loadLayout, parseLayout, summarizeLayout } from './load.js';
export type { LayoutError, LoadOptions, LoadResult } from './load.js';
export { normalizeLayout, expandHome, planApproverOf, runtimeOf } from './normalize.js';
export type {
  MainSize,
  NormalizedAgent,
  NormalizedCommand,
  NormalizedLayout,
  NormalizedMember,
  NormalizedSeedTask,
} from './normalize.js';
export { LayoutSchema, MemberSchema, SeedTaskSchema, LAYOUT_NAMES, NAME_PATTERN, SIDEBAR_SECTIONS } from './schema.js';
export type { AgentOptions, Backend, Layout, LayoutInput, LayoutName, Member, PlanApprover, SeedTask } from './schema.js';
export { KEY_ACTIONS, isKeyName } from './keys-actions.js';
export type { KeyAction } from './keys-actions.js';
export { layoutJsonSchema, renderLayoutJsonSchema } from './json-schema.js';
