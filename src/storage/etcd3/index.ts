export { EtcdClient, parseEndpoint, type EtcdClientOptions, type EtcdTlsFiles } from './client.ts';
export { COMPACT_REV_KEY, compactStep, startEtcdCompactor } from './compact.ts';
export { LEASE_MAX_OBJECTS, LeaseManager } from './lease-manager.ts';
export { DbSizeMonitor, etcdProbe } from './monitor.ts';
export { EtcdStorage, openEtcdStorage, type EtcdStorageOptions } from './storage.ts';
