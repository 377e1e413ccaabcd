export { classifyAddress, parseIpAddress, parseIpNetwork, type AddressClass } from './addresses.js';
export { EgressConfigError, parseEgressConfig } from './config.js';
export {
  createEgressPolicy,
  egressRefusalOf,
  EgressRefusedError,
  type EgressConfig,
  type EgressPolicy,
  type EgressPolicyOptions,
  type EgressRefusal,
  type EgressRefusalReason,
  type EgressResolver,
  type EgressRule,
  type EgressScope,
  type ResolvedAddress,
} from './policy.js';
export { startEgressProxy, type EgressProxy, type EgressProxyOptions } from './proxy.js';
