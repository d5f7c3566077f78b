import type { DltEntity, DltTemplate, SandboxSeed, WhatsAppTemplate } from './types';
import { ApiError } from './http/api-error';

/** The account's approved DLT and WhatsApp templates. */
export class TemplateRegistry {
	private readonly dltEntities: Map<string, DltEntity>;
	private readonly whatsappTemplates: Map<string, WhatsAppTemplate>;

	constructor(seed: Pick<SandboxSeed, 'dltEntities' | 'whatsappTemplates'>) {
		this.dltEntities = new Map(seed.dltEntities.map((entity) => [entity.entityId, entity]));
		this.whatsappTemplates = new Map(
			seed.whatsappTemplates.map((template) => [template.name, template]),
		);
	}

	dltTemplate(entityId: string, templateId: string): DltTemplate {
		const entity = this.dltEntities.get(entityId);
		if (!entity) {
			throw new ApiError(
				404,
				'template_not_found',
				`No DLT principal entity '${entityId}' is registered for this account. Check the entity_id.`,
				'entity_id',
			);
		}
		const template = entity.templates.find((candidate) => candidate.templateId === templateId);
		if (!template) {
			throw new ApiError(
				404,
				'template_not_found',
				`No DLT template '${templateId}' is approved under entity '${entityId}'. Check the template_id.`,
				'template_id',
			);
		}
		return template;
	}

	whatsappTemplate(name: string): WhatsAppTemplate {
		const template = this.whatsappTemplates.get(name);
		if (!template) {
			throw new ApiError(
				404,
				'template_not_found',
				`No approved WhatsApp template named '${name}'. Check the template_name.`,
				'template_name',
			);
		}
		return template;
	}
}
