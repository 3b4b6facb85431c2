/**
 * The price list (DESIGN.md, Billing): public, the same for every company. Prices are exact decimal
 * strings in the list's currency, per period. `productionPayments` is how many production payments
 * the package covers per period.
 */
export type BillingPackage = {
  id: string;
  name: string;
  productionPayments: number;
  period: 'month';
  price: string;
};

export const PACKAGE_CURRENCY = 'EUR';

export const PACKAGES: readonly BillingPackage[] = [
  { id: 'starter', name: 'Starter', productionPayments: 100, period: 'month', price: '49.00' },
  { id: 'business', name: 'Business', productionPayments: 1000, period: 'month', price: '199.00' },
  { id: 'enterprise', name: 'Enterprise', productionPayments: 10000, period: 'month', price: '790.00' },
];

export function findPackage(id: string): BillingPackage | undefined {
  return PACKAGES.find((p) => p.id === id);
}
