import { actionTitle } from './turn-actions';

describe('actionTitle: an action name as the confirm card shows it', () => {
  it.each([
    ['cancel_order', 'Cancel order'],
    ['request_booking', 'Request booking'],
    ['shop_cancel-order', 'Shop cancel order'],
    ['cancelOrder', 'Cancel order'],
    ['Refund', 'Refund'],
  ])('%s → %s', (name, title) => expect(actionTitle(name)).toBe(title));
});
