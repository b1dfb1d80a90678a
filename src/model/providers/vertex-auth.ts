import { envValue, type EnvLike } from "../catalog/credentials.js";
import { errorMessage } from "../../util/errors.js";
import { ModelConfigError } from "../errors.js";
import type { GoogleAuth } from "./google.js";
import { importOptional } from "../catalog/optional-packages.js";

// Vertex AI credentials: Google's application-default credentials (GOOGLE_APPLICATION_CREDENTIALS,
// then gcloud's application_default_credentials.json, then the metadata server), through
// google-auth-library, loaded only for vertex: models. Service-account keys sign their own scoped
// JWTs (no token exchange), as Google's client libraries do.

const SCOPE = "https://www.googleapis.com/auth/cloud-platform";

export async function vertexAuth(env: EnvLike, model: string): Promise<Extract<GoogleAuth, { kind: "vertex" }>> {
  const { GoogleAuth } = await importOptional(
    { provider: "vertex", purpose: "vertex: models", packages: ["google-auth-library"] },
    () => import("google-auth-library"),
  );
  const keyFile = envValue(env, "GOOGLE_APPLICATION_CREDENTIALS");
  const auth = new GoogleAuth({ scopes: [SCOPE], ...(keyFile && { keyFilename: keyFile }) });
  auth.useJWTAccessWithScope = true;
  const describe = keyFile ? `GOOGLE_APPLICATION_CREDENTIALS (${keyFile})` : "application-default credentials";
  let client: Awaited<ReturnType<typeof auth.getClient>>;
  try {
    client = await auth.getClient();
  } catch (error) {
    throw new ModelConfigError(
      "missing_credentials",
      `vertex:${model} needs Google application-default credentials (${errorMessage(error)}): run \`gcloud auth application-default login\` or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file`,
      "vertex",
    );
  }
  let project = envValue(env, "GOOGLE_CLOUD_PROJECT") ?? envValue(env, "GCLOUD_PROJECT");
  if (!project) {
    project = (await auth.getProjectId().catch(() => undefined)) ?? undefined;
    if (!project)
      throw new ModelConfigError(
        "missing_credentials",
        `vertex:${model} needs a project: set GOOGLE_CLOUD_PROJECT`,
        "vertex",
      );
  }
  const location = envValue(env, "GOOGLE_CLOUD_LOCATION") ?? "global";
  return {
    kind: "vertex",
    project,
    location,
    describe,
    getHeaders: async () => {
      const url =
        location === "global" ? "https://aiplatform.googleapis.com/" : `https://${location}-aiplatform.googleapis.com/`;
      const headers = await client.getRequestHeaders(url);
      const out: Record<string, string> = {};
      headers.forEach((value, key) => void (out[key] = value));
      return out;
    },
  };
}
