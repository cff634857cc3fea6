import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AUDIT_LIST_DEFAULT, AuditEntryView, AuditQuery, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { PeopleAdmin } from '@sa/people';
import { ConsoleRoute } from '../auth/console-route.decorator';
import { ApiList, ApiWorkspaceErrors } from '../openapi/console-responses';

@ApiTags('Audit log')
@Controller('api/workspaces/:workspaceId/audit')
export class AuditController {
  constructor(private readonly people: PeopleAdmin) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'listAudit',
    summary: 'The audit log',
    description: 'Every change made through the console or the admin CLI, newest first. Page with `before` = the `id` of the last entry.',
  })
  @ApiList('Entries, newest first.', AuditEntryView)
  @ApiWorkspaceErrors()
  async list(@Param(dto(WorkspaceParams, 'path')) params: WorkspaceParams, @Query(dto(AuditQuery, 'query')) query: AuditQuery): Promise<{ data: AuditEntryView[] }> {
    return { data: await this.people.audit.list(params.workspaceId, { limit: query.limit ?? AUDIT_LIST_DEFAULT, before: query.before }) };
  }
}
