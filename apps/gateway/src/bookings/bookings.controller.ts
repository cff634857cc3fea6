import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { BotAccess } from '@sa/bot-access';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BookingIdRequest, BookingView, CallerContext, LIST_LIMIT_MAX, ListBookingsRequest, UpdateBookingBody } from '@sa/contracts';
import { RpcClient } from '@sa/messaging';
import { Caller } from '../auth/caller.decorator';
import { RequireScope } from '../auth/route-access.decorator';
import { dto } from '../http/dto.pipe';
import { ApiData, ApiErrorObject, ApiTokenErrors } from '../openapi/api-responses';

/**
 * GET /v1/bookings, GET /v1/bookings/{id}, PATCH /v1/bookings/{id} (spec parts 3 and 4). A
 * restricted token without chatbotId lists its own bots' bookings (filtered by the bookings
 * service); naming another bot, or touching a booking of another bot, is 403.
 */
@ApiTags('Bookings')
@ApiTokenErrors()
@Controller('v1/bookings')
export class BookingsController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  @RequireScope('bookings:read', { botAccess: { mode: BotAccess.MayName, from: 'query' } })
  @ApiOperation({
    operationId: 'listBookings',
    summary: 'List bookings',
    description: 'Lists bookings, newest first. Bookings are created by visitors through the widget; the REST API has no create operation.',
  })
  @ApiData(200, 'The bookings.', [BookingView], { maxItems: LIST_LIMIT_MAX })
  async list(@Caller() ctx: CallerContext, @Query(dto(ListBookingsRequest, 'query')) query: ListBookingsRequest): Promise<{ data: BookingView[] }> {
    return { data: await this.rpc.send('bookings.booking.list', query, ctx) };
  }

  @Get(':id')
  @RequireScope('bookings:read', { botAccess: { mode: BotAccess.OfResource } })
  @ApiOperation({
    operationId: 'getBooking',
    summary: 'Get a booking',
    description:
      'Returns one booking (visitor, slot, status). The spec does not show the response body beyond it being one booking; ' +
      'this implementation answers `{data: Booking}`, the same envelope as PATCH /bookings/{id}.',
  })
  @ApiData(200, 'The booking (envelope chosen by this implementation).', BookingView)
  async get(@Caller() ctx: CallerContext, @Param(dto(BookingIdRequest, 'path')) params: BookingIdRequest): Promise<{ data: BookingView }> {
    return { data: await this.rpc.send('bookings.booking.get', params, ctx) };
  }

  @Patch(':id')
  @RequireScope('bookings:write', { botAccess: { mode: BotAccess.OfResource } })
  @ApiOperation({
    operationId: 'updateBooking',
    summary: 'Confirm, reject, reschedule or cancel a booking',
    description:
      'Moves a booking with `action`. `confirm` (pending, slot free) makes it confirmed, blocks the slot and sets confirmed_at; ' +
      '`reject` (pending) makes it rejected and sets rejection_comment and rejected_at; `cancel` (pending or confirmed) makes it ' +
      'cancelled and sets cancelled_at; `reschedule` (pending or confirmed, requestedSlot required) moves the slot. The visitor is ' +
      'e-mailed in every case. The status after a reschedule is not specified.',
  })
  @ApiData(200, 'The updated booking.', BookingView)
  @ApiErrorObject(409, 'The slot is taken, the booking was already decided, or the booking is no longer active.')
  async update(
    @Caller() ctx: CallerContext,
    @Param(dto(BookingIdRequest, 'path')) params: BookingIdRequest,
    @Body(dto(UpdateBookingBody, 'body')) body: UpdateBookingBody,
  ): Promise<{ data: BookingView }> {
    return { data: await this.rpc.send('bookings.booking.update', { ...body, id: params.id }, ctx) };
  }
}
