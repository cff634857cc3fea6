import { Body, Controller, Delete, Get, HttpCode, Param, Patch } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ChangeRoleRequest, MemberParams, MemberView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { PeopleAdmin, WorkspaceActor } from '@sa/people';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { ApiConsoleErrors, ApiEmpty, ApiList, ApiView, ApiWorkspaceErrors } from '../openapi/console-responses';

function actorOf(caller: ConsoleCallerInfo): WorkspaceActor {
  const { workspace, person } = workspaceOf(caller);
  return { actor: { kind: 'person', id: person.id, label: person.email }, role: workspace.role };
}

@ApiTags('Members')
@Controller('api/workspaces/:workspaceId/members')
export class MembersController {
  constructor(private readonly people: PeopleAdmin) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listMembers', summary: 'Members of the workspace', description: 'In the order they joined.' })
  @ApiList('The members.', MemberView)
  @ApiWorkspaceErrors()
  async list(@Param(dto(WorkspaceParams, 'path')) params: WorkspaceParams): Promise<{ data: MemberView[] }> {
    return { data: await this.people.listMembers(params.workspaceId) };
  }

  @Patch(':personId')
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'changeMemberRole',
    summary: "Change a member's role",
    description: 'Owners and admins change roles between admin and member; only owners give or take the owner role (403 `forbidden_role`). The last owner keeps it (409 `last_owner`).',
  })
  @ApiView(200, 'The member with the new role.', MemberView)
  @ApiWorkspaceErrors()
  @ApiConsoleErrors(409)
  async changeRole(@Param(dto(MemberParams, 'path')) params: MemberParams, @Body(dto(ChangeRoleRequest, 'body')) body: ChangeRoleRequest, @ConsoleCaller() caller: ConsoleCallerInfo): Promise<MemberView> {
    return this.people.changeRole(params.workspaceId, actorOf(caller), params.personId, body.role);
  }

  @Delete(':personId')
  @HttpCode(204)
  // Members may leave (remove themselves); removing someone else needs the role to manage theirs.
  @ConsoleRoute('member')
  @ApiOperation({
    operationId: 'removeMember',
    summary: 'Remove a member, or leave',
    description: 'Everyone may leave (their own person id) except the last owner (409 `last_owner`). Removing someone else: owners anyone, admins admins and members (403 `forbidden_role`).',
  })
  @ApiEmpty(204, 'Removed.')
  @ApiWorkspaceErrors()
  @ApiConsoleErrors(409)
  async remove(@Param(dto(MemberParams, 'path')) params: MemberParams, @ConsoleCaller() caller: ConsoleCallerInfo): Promise<void> {
    await this.people.removeMember(params.workspaceId, actorOf(caller), params.personId);
  }
}
