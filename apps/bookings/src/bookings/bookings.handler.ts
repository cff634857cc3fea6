import { Controller } from '@nestjs/common';
import { BookingIdRequest, BookingView, CallerContext, CreateBookingRequest, ListBookingsRequest, UpdateBookingRequest } from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { BookingsService } from './bookings.service';

@Controller()
export class BookingsHandler {
  constructor(private readonly bookings: BookingsService) {}

  @RpcHandler('bookings.booking.list')
  list(req: ListBookingsRequest, ctx: CallerContext): Promise<BookingView[]> {
    return this.bookings.list(ctx, req);
  }

  @RpcHandler('bookings.booking.get')
  get(req: BookingIdRequest, ctx: CallerContext): Promise<BookingView> {
    return this.bookings.get(ctx, req.id);
  }

  @RpcHandler('bookings.booking.update')
  update(req: UpdateBookingRequest, ctx: CallerContext): Promise<BookingView> {
    return this.bookings.update(ctx, req);
  }

  @RpcHandler('bookings.booking.create')
  create(req: CreateBookingRequest, ctx: CallerContext): Promise<BookingView> {
    return this.bookings.create(ctx, req);
  }
}
