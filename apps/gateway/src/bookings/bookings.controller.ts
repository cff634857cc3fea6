import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { BookingIdRequest, BookingView, CallerContext, ListBookingsRequest, UpdateBookingBody } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';

/**
 * GET /v1/bookings, GET /v1/bookings/{id}, PATCH /v1/bookings/{id} (spec parts 3 and 4). A
 * restricted token without chatbotId lists its own bots' bookings (filtered by the bookings
 * service); naming another bot, or touching a booking of another bot, is 403.
 */
@Controller('v1/bookings')
export class BookingsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('bookings:read', { botAccess: { mode: BotAccess.MayName, from: 'query' } })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListBookingsRequest, 'query')) query: ListBookingsRequest): Promise<{ data: BookingView[] }> {
    return { data: await this.rpc.send('bookings.booking.list', query, ctx) };
  }

  @Get(':id')
  @RequireScope('bookings:read', { botAccess: { mode: BotAccess.OfResource } })
  async get(@Caller() ctx: CallerContext, @Param(dto(BookingIdRequest, 'path')) params: BookingIdRequest): Promise<{ data: BookingView }> {
    return { data: await this.rpc.send('bookings.booking.get', params, ctx) };
  }

  @Patch(':id')
  @RequireScope('bookings:write', { botAccess: { mode: BotAccess.OfResource } })
  async update(
    @Caller() ctx: CallerContext,
    @Param(dto(BookingIdRequest, 'path')) params: BookingIdRequest,
    @Body(dto(UpdateBookingBody, 'body')) body: UpdateBookingBody,
  ): Promise<{ data: BookingView }> {
    return { data: await this.rpc.send('bookings.booking.update', { ...body, id: params.id }, ctx) };
  }
}
