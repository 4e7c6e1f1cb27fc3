/* Skills over MCP (SEP-2640) through the C API against the TypeScript SDK 2.4.0's own skills
 * extension (testkit/sdk-servers/skills.mjs over stdio, serving a folder this test writes):
 * - codex_client_mcp_skills_list (every page, and the first page) lists the skill with its
 *   manifest; codex_client_mcp_skill_load returns the SKILL.md verified (the body marker);
 *   an unknown skill is INVALID_ARGUMENT naming what the server lists;
 * - codex_client_add_skill_source: a bad label, an MCP client as the Codex side, a Codex
 *   client as the source: INVALID_ARGUMENT; codex_client_remove_skill_source 1 then 0.
 * (The tampered cases are the conformance suite's; a Codex turn with a skill from this server
 * is core/tests/mcp_skills.rs and tests/python/test_mcp_skills.py.)
 */
#include "mcp_util.h"
#include "test_util.h"

#define BODY "MCP-SKILL-BODY-c-8e21: convert with pdftotext"

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    CHECK(fclose(f) == 0);
}

int main(void) {
    double t0 = now_s();
    static const char *const modules_links[] = {".cache/mcp-modules", NULL};
    char root[] = "/tmp/codexclient-c-skills-XXXXXX";
    char path[512], cmd[700];
    const char *argv[3];
    codex_options_t *o;
    codex_client_t *mcp = NULL, *codex = NULL;
    char *init = NULL, *list = NULL, *skill = NULL;

    CHECK(setenv("MCP_MODULES", mcp_find("MCP_MODULES", modules_links), 1) == 0);
    CHECK(mkdtemp(root) != NULL);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/pdf-tools'", root);
    CHECK(system(cmd) == 0);
    snprintf(path, sizeof path, "%s/pdf-tools/SKILL.md", root);
    write_file(path, "---\nname: pdf-tools\ndescription: Work with PDF files\n---\n\n" BODY "\n");

    argv[0] = mcp_node();
    argv[1] = "testkit/sdk-servers/skills.mjs";
    argv[2] = root;
    o = new_options();
    CHECK_OK(codex_options_set_mcp_command(o, argv, 3));
    CHECK_OK(codex_client_new(o, &mcp));
    codex_options_free(o);
    CHECK_OK(codex_client_connect(mcp, &init));
    CHECK(strstr(init, "io.modelcontextprotocol/skills") != NULL);

    CHECK_STATUS(codex_client_mcp_skills_list(mcp, NULL, 1, NULL), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_client_mcp_skills_list(mcp, NULL, 1, &list));
    CHECK(strstr(list, "\"uri\":\"skill://pdf-tools/SKILL.md\"") != NULL);
    CHECK(strstr(list, "\"digest\":\"sha256:") != NULL);
    codex_string_free(list);
    CHECK_OK(codex_client_mcp_skills_list(mcp, NULL, 0, &list));
    CHECK(strstr(list, "pdf-tools") != NULL && strstr(list, "\"nextCursor\"") != NULL);
    codex_string_free(list);

    CHECK_OK(codex_client_mcp_skill_load(mcp, "pdf-tools", &skill));
    CHECK(strstr(skill, BODY) != NULL);
    CHECK(strstr(skill, "\"entry\":{") != NULL);
    codex_string_free(skill);
    skill = NULL;
    CHECK_STATUS(codex_client_mcp_skill_load(mcp, "nope", &skill), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK(skill == NULL);
    CHECK(strstr(codex_last_error_message(), "pdf-tools") != NULL);

    o = new_options();
    CHECK_OK(codex_client_new(o, &codex));
    codex_options_free(o);
    CHECK_STATUS(codex_client_add_skill_source(codex, "a b", mcp), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_add_skill_source(mcp, "docs", mcp), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_STATUS(codex_client_add_skill_source(codex, "docs", codex), CODEX_STATUS_INVALID_ARGUMENT);
    CHECK_OK(codex_client_add_skill_source(codex, "docs", mcp));
    CHECK(codex_client_remove_skill_source(codex, "docs") == 1);
    CHECK(codex_client_remove_skill_source(codex, "docs") == 0);
    CHECK(codex_client_remove_skill_source(codex, NULL) == -1);

    codex_client_free(codex);
    codex_string_free(init);
    CHECK_OK(codex_client_disconnect(mcp));
    codex_client_free(mcp);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK(system(cmd) == 0);
    printf("test_mcp_skills: ok (%.1f s)\n", now_s() - t0);
    return 0;
}
