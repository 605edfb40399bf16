import { AUDIENCE } from './test-service.js';

/** The test audience's catalog: two public defaults, one public on request, one server-side. */
export const TEST_SCOPE_CATALOG = {
  [AUDIENCE]: {
    'products:read': { description: 'read products', public: true, default: true },
    'cart:write': { description: 'change carts', public: true, default: true },
    'checkout:write': { description: 'check out', public: true },
    'orders:read': { description: 'every order', public: false },
  },
};
