/**
 * core/v1 Node: its definition and registration (upstream `pkg/registry/core/node/storage`), and the `status`
 * subresource, a second store over the same watch cache with the status strategy.
 */
import { NODE, NODE_DEFS, NODE_LIST } from '../../apis/core/v1/node-schema.ts';
import { NODES_RESOURCE, NODE_KIND, type Node } from '../../apis/core/v1/node-types.ts';
import { GROUP, VERSION } from '../../apis/core/v1/types.ts';
import type { KubeObject } from '../../apis/meta/v1/types.ts';
import { encode } from '../../apimachinery/codec/encode.ts';
import { spliceResourceVersion } from '../../apimachinery/codec/resource-version-splice.ts';
import type { Codec } from '../../storage/interface.ts';
import { type Registered, type RegisterOptions, type ResourceDefinition, registerResource, registerSubresource } from '../generic/registration.ts';
import { nodeStatusStrategy, nodeStrategy } from './strategy.ts';
import { NODE_TABLE } from './table.ts';

/** Stored bytes are canonical JSON in Go field order, as the other kinds'. */
const nodeCodec: Codec & { decode(value: Buffer): Node } = {
  encode: (obj: KubeObject) => encode(obj, NODE_DEFS, NODE),
  decode: (value: Buffer) => JSON.parse(value.toString('utf8')) as Node,
  setResourceVersion: spliceResourceVersion,
};

export function nodeDefinition(): ResourceDefinition<Node> {
  return {
    group: GROUP,
    version: VERSION,
    kind: NODE_KIND,
    resource: NODES_RESOURCE,
    shortNames: ['no'],
    strategy: nodeStrategy,
    codec: nodeCodec,
    defs: NODE_DEFS,
    definition: NODE,
    listDefinition: NODE_LIST,
    table: NODE_TABLE,
  };
}

export interface NodeResources {
  nodes: Registered<Node>;
  status: Registered<Node>;
}

export async function registerNodes(opts: RegisterOptions): Promise<NodeResources> {
  const nodes = await registerResource(nodeDefinition(), opts);
  // Upstream's StatusREST: get, update and patch on /nodes/{name}/status, writing status only.
  const status = registerSubresource({ ...nodeDefinition(), strategy: nodeStatusStrategy, verbs: ['get', 'patch', 'update'] }, 'status', nodes);
  return { nodes, status };
}
