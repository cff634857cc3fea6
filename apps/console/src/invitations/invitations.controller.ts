import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { CreateInvitationRequest, InvitationParams, InvitationView, WorkspaceParams } from '@sa/contracts';
import { dto } from '@sa/edge';
import { RpcClient } from '@sa/messaging';
import { PeopleAdmin } from '@sa/people';
import { ConsoleCaller, ConsoleCallerInfo, ConsoleRoute, workspaceOf } from '../auth/console-route.decorator';
import { CONSOLE_CONFIG, ConsoleConfig } from '../config/console.config';
import { invitationEmail } from '../mail/person-mail';
import { ApiConsoleErrors, ApiEmpty, ApiList, ApiView, ApiWorkspaceErrors } from '../openapi/console-responses';

@ApiTags('Members')
@Controller('api/workspaces/:workspaceId/invitations')
export class InvitationsController {
  constructor(
    private readonly people: PeopleAdmin,
    private readonly rpc: RpcClient,
    @Inject(CONSOLE_CONFIG) private readonly config: ConsoleConfig,
  ) {}

  @Get()
  @ConsoleRoute('member')
  @ApiOperation({ operationId: 'listInvitations', summary: 'Open invitations', description: 'Not yet accepted and not expired, newest first.' })
  @ApiList('The open invitations.', InvitationView)
  @ApiWorkspaceErrors()
  async list(@Param(dto(WorkspaceParams, 'path')) params: WorkspaceParams): Promise<{ data: InvitationView[] }> {
    return { data: await this.people.listInvitations(params.workspaceId) };
  }

  @Post()
  @HttpCode(201)
  @ConsoleRoute('admin')
  @ApiOperation({
    operationId: 'createInvitation',
    summary: 'Invite a person',
    description: 'Sends a single-use link by e-mail (never in the answer). Only owners invite owners (403 `forbidden_role`); 409 `conflict` when the address is already a member. A new invitation to the same address replaces the open one.',
  })
  @ApiView(201, 'The invitation.', InvitationView)
  @ApiWorkspaceErrors()
  @ApiConsoleErrors(409)
  async create(
    @Param(dto(WorkspaceParams, 'path')) _params: WorkspaceParams,
    @Body(dto(CreateInvitationRequest, 'body')) body: CreateInvitationRequest,
    @ConsoleCaller() caller: ConsoleCallerInfo,
  ): Promise<InvitationView> {
    const { workspace, person } = workspaceOf(caller);
    const actor = { kind: 'person' as const, id: person.id, label: person.email };
    const { invitation } = await this.people.createInvitation(workspace.id, { actor, role: workspace.role }, body.email, body.role, async (inv, token) => {
      await this.rpc.send(
        'bookings.email.send',
        invitationEmail({ publicUrl: this.config.publicUrl, to: inv.email, token, workspaceId: workspace.id, workspaceName: workspace.name, role: inv.role, invitedBy: person.display_name || person.email, expiresAt: inv.expires_at }),
      );
    });
    return invitation;
  }

  @Delete(':invitationId')
  @HttpCode(204)
  @ConsoleRoute('admin')
  @ApiOperation({ operationId: 'deleteInvitation', summary: 'Withdraw an invitation', description: 'Its link stops working. Only owners withdraw invitations of owners.' })
  @ApiEmpty(204, 'Withdrawn.')
  @ApiWorkspaceErrors()
  async remove(@Param(dto(InvitationParams, 'path')) params: InvitationParams, @ConsoleCaller() caller: ConsoleCallerInfo): Promise<void> {
    const { workspace, person } = workspaceOf(caller);
    await this.people.deleteInvitation(workspace.id, { actor: { kind: 'person', id: person.id, label: person.email }, role: workspace.role }, params.invitationId);
  }
}
