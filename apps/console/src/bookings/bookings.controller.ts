import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { BookingParams, BookingView, ListBookingsRequest, UpdateBookingBody, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { ConsoleAudit } from '../audit/console-audit';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiData, ApiList } from '../openapi/console-responses';

/**
 * Bookings (issue 19): members list them by status; owners and admins confirm, reject,
 * reschedule or cancel through bookings.booking.update, exactly as PATCH /v1/bookings/{id} (same
 * body, same rules, same 409s; the visitor is e-mailed by the bookings service as there).
 */
@ApiTags('Bookings')
@Controller('api/workspaces/:workspaceId/bookings')
export class BookingsController {
  constructor(
    private readonly rpc: RpcClient,
    private readonly audit: ConsoleAudit,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listBookings', summary: 'List bookings', description: 'Bookings, newest first, optionally of one status or bot.' })
  @ApiList('The bookings.', BookingView)
  @ApiConsoleErrors(400, 401, 404, 503)
  async list(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Query(dto(ListBookingsRequest, 'query')) query: ListBookingsRequest,
  ): Promise<{ data: BookingView[] }> {
    return { data: await this.rpc.send('bookings.booking.list', query, workspaceOf(caller).ctx) };
  }

  @Patch(':bookingId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'updateBooking',
    summary: 'Confirm, reject, reschedule or cancel a booking',
    description:
      'The body and rules of PATCH /v1/bookings/{id}: `confirm` and `reject` apply to pending bookings, `reschedule` (with requestedSlot) and `cancel` to pending or confirmed ones; ' +
      'otherwise, or when the slot is taken, 409 `conflict` with the reason. The visitor is e-mailed.',
  })
  @ApiData(200, 'The updated booking.', BookingView)
  @ApiConsoleErrors(400, 401, 403, 404, 409, 503)
  async update(
    @ConsoleCaller() caller: ConsoleCallerInfo,
    @Param(dto(BookingParams, 'path')) params: BookingParams,
    @Body(dto(UpdateBookingBody, 'body')) body: UpdateBookingBody,
  ): Promise<{ data: BookingView }> {
    const updated = await this.rpc.send('bookings.booking.update', { ...body, id: params.bookingId }, workspaceOf(caller).ctx);
    const comment = body.rejectionComment ?? body.cancelComment;
    await this.audit.record(caller, `booking.${body.action}`, 'booking', updated.id, {
      status: updated.status,
      ...(body.requestedSlot ? { requested_slot: updated.requested_slot } : {}),
      ...(comment ? { comment } : {}),
    });
    return { data: updated };
  }
}
