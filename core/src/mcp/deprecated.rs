//! The MCP methods that used to be on [`Client`], kept for one minor version as
//! deprecated one-line forwards to [`McpClient`]. The typed requests' forwards (`list_tools`,
//! `call_tool`, `ping`, …) are not here: `mcp_requests!` in `typed.rs` generates them with
//! the requests themselves.
#![allow(missing_docs)]

use super::*;
use crate::connection::Client;
use crate::error::Result;
use crate::mcp::McpClient;
use crate::options::RequestOptions;
use serde_json::Value;
use std::time::Duration;

impl Client {
    /// Deprecated: moved to [`McpClient::wait_elicitations_complete`].
    #[deprecated(since = "0.2.0", note = "use McpClient::wait_elicitations_complete")]
    pub async fn wait_elicitations_complete(
        &self,
        ids: &[String],
        timeout: Duration,
    ) -> Result<()> {
        McpClient::from_connection(self)
            .wait_elicitations_complete(ids, timeout)
            .await
    }

    /// Deprecated: moved to [`McpClient::wait_elicitations_complete_blocking`].
    #[deprecated(
        since = "0.2.0",
        note = "use McpClient::wait_elicitations_complete_blocking"
    )]
    pub fn wait_elicitations_complete_blocking(
        &self,
        ids: &[String],
        timeout: Duration,
    ) -> Result<()> {
        McpClient::from_connection(self).wait_elicitations_complete_blocking(ids, timeout)
    }

    /// Deprecated: moved to [`McpClient::listen`].
    #[deprecated(since = "0.2.0", note = "use McpClient::listen")]
    pub async fn listen(&self, filter: Value, within: Duration) -> Result<Listen> {
        McpClient::from_connection(self)
            .listen(filter, within)
            .await
    }

    /// Deprecated: moved to [`McpClient::listen_within`].
    #[deprecated(since = "0.2.0", note = "use McpClient::listen_within")]
    pub async fn listen_within(&self, filter: Value, within: Option<Duration>) -> Result<Listen> {
        McpClient::from_connection(self)
            .listen_within(filter, within)
            .await
    }

    /// Deprecated: moved to [`McpClient::listen_blocking`].
    #[deprecated(since = "0.2.0", note = "use McpClient::listen_blocking")]
    pub fn listen_blocking(&self, filter: Value, within: Option<Duration>) -> Result<Listen> {
        McpClient::from_connection(self).listen_blocking(filter, within)
    }

    /// Deprecated: moved to [`McpClient::start_with_progress`].
    #[deprecated(since = "0.2.0", note = "use McpClient::start_with_progress")]
    pub fn start_with_progress(
        &self,
        method: &str,
        params: Value,
        opts: RequestOptions,
    ) -> Result<ProgressCall> {
        McpClient::from_connection(self).start_with_progress(method, params, opts)
    }

    /// Deprecated: moved to [`McpClient::serves_skills`].
    #[deprecated(since = "0.2.0", note = "use McpClient::serves_skills")]
    pub fn serves_skills(&self) -> bool {
        McpClient::from_connection(self).serves_skills()
    }

    /// Deprecated: moved to [`McpClient::list_skills`].
    #[deprecated(since = "0.2.0", note = "use McpClient::list_skills")]
    pub async fn list_skills(&self, cursor: Option<&str>) -> Result<Page<SkillEntry>> {
        McpClient::from_connection(self).list_skills(cursor).await
    }

    /// Deprecated: moved to [`McpClient::list_all_skills`].
    #[deprecated(since = "0.2.0", note = "use McpClient::list_all_skills")]
    pub async fn list_all_skills(&self) -> Result<Vec<SkillEntry>> {
        McpClient::from_connection(self).list_all_skills().await
    }

    /// Deprecated: moved to [`McpClient::get_skill`].
    #[deprecated(since = "0.2.0", note = "use McpClient::get_skill")]
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry> {
        McpClient::from_connection(self).get_skill(uri).await
    }

    /// Deprecated: moved to [`McpClient::find_skill`].
    #[deprecated(since = "0.2.0", note = "use McpClient::find_skill")]
    pub async fn find_skill(&self, name_or_uri: &str) -> Result<SkillEntry> {
        McpClient::from_connection(self)
            .find_skill(name_or_uri)
            .await
    }

    /// Deprecated: moved to [`McpClient::load_skill`].
    #[deprecated(since = "0.2.0", note = "use McpClient::load_skill")]
    pub async fn load_skill(&self, entry: &SkillEntry) -> Result<LoadedSkill> {
        McpClient::from_connection(self).load_skill(entry).await
    }

    /// Deprecated: moved to [`McpClient::read_skill_file`].
    #[deprecated(since = "0.2.0", note = "use McpClient::read_skill_file")]
    pub async fn read_skill_file(&self, skill: &LoadedSkill, uri: &str) -> Result<Vec<u8>> {
        McpClient::from_connection(self)
            .read_skill_file(skill, uri)
            .await
    }

    /// Deprecated: moved to [`McpClient::list_skills_json`].
    #[deprecated(since = "0.2.0", note = "use McpClient::list_skills_json")]
    pub async fn list_skills_json(&self, cursor: Option<&str>, all_pages: bool) -> Result<Value> {
        McpClient::from_connection(self)
            .list_skills_json(cursor, all_pages)
            .await
    }

    /// Deprecated: moved to [`McpClient::load_skill_json`].
    #[deprecated(since = "0.2.0", note = "use McpClient::load_skill_json")]
    pub async fn load_skill_json(&self, name_or_uri: &str) -> Result<Value> {
        McpClient::from_connection(self)
            .load_skill_json(name_or_uri)
            .await
    }

    /// Deprecated: moved to [`McpClient::list_skills_json_blocking`].
    #[deprecated(since = "0.2.0", note = "use McpClient::list_skills_json_blocking")]
    pub fn list_skills_json_blocking(
        &self,
        cursor: Option<&str>,
        all_pages: bool,
    ) -> Result<Value> {
        McpClient::from_connection(self).list_skills_json_blocking(cursor, all_pages)
    }

    /// Deprecated: moved to [`McpClient::load_skill_json_blocking`].
    #[deprecated(since = "0.2.0", note = "use McpClient::load_skill_json_blocking")]
    pub fn load_skill_json_blocking(&self, name_or_uri: &str) -> Result<Value> {
        McpClient::from_connection(self).load_skill_json_blocking(name_or_uri)
    }

    /// Deprecated: moved to [`McpClient::call_tool_as_task`].
    #[deprecated(since = "0.2.0", note = "use McpClient::call_tool_as_task")]
    pub async fn call_tool_as_task(
        &self,
        name: &str,
        arguments: Value,
        ttl: Option<Duration>,
    ) -> Result<TaskCall> {
        McpClient::from_connection(self)
            .call_tool_as_task(name, arguments, ttl)
            .await
    }

    /// Deprecated: moved to [`McpClient::get_task`].
    #[deprecated(since = "0.2.0", note = "use McpClient::get_task")]
    pub async fn get_task(&self, task_id: &str) -> Result<Task> {
        McpClient::from_connection(self).get_task(task_id).await
    }

    /// Deprecated: moved to [`McpClient::list_tasks`].
    #[deprecated(since = "0.2.0", note = "use McpClient::list_tasks")]
    pub async fn list_tasks(&self, cursor: Option<&str>) -> Result<Page<Task>> {
        McpClient::from_connection(self).list_tasks(cursor).await
    }

    /// Deprecated: moved to [`McpClient::cancel_task`].
    #[deprecated(since = "0.2.0", note = "use McpClient::cancel_task")]
    pub async fn cancel_task(&self, task_id: &str) -> Result<Task> {
        McpClient::from_connection(self).cancel_task(task_id).await
    }

    /// Deprecated: moved to [`McpClient::task_result`].
    #[deprecated(since = "0.2.0", note = "use McpClient::task_result")]
    pub async fn task_result(&self, task_id: &str) -> Result<Value> {
        McpClient::from_connection(self).task_result(task_id).await
    }

    /// Deprecated: moved to [`McpClient::task_tool_result`].
    #[deprecated(since = "0.2.0", note = "use McpClient::task_tool_result")]
    pub async fn task_tool_result(&self, task_id: &str) -> Result<CallToolResult> {
        McpClient::from_connection(self)
            .task_tool_result(task_id)
            .await
    }

    /// Deprecated: moved to [`McpClient::wait_task`].
    #[deprecated(since = "0.2.0", note = "use McpClient::wait_task")]
    pub async fn wait_task(&self, task_id: &str, within: Duration) -> Result<Task> {
        McpClient::from_connection(self)
            .wait_task(task_id, within)
            .await
    }

    /// Deprecated: moved to [`McpClient::mcp_with`].
    #[deprecated(since = "0.2.0", note = "use McpClient::mcp_with")]
    pub fn mcp_with(&self, opts: RequestOptions) -> Mcp<'_> {
        McpClient::from_connection(self).mcp_with(opts)
    }

    /// Deprecated: moved to [`McpClient::call_tool_with_progress`].
    #[deprecated(since = "0.2.0", note = "use McpClient::call_tool_with_progress")]
    pub async fn call_tool_with_progress(
        &self,
        name: &str,
        arguments: Value,
        opts: RequestOptions,
        on_progress: impl FnMut(Progress) + Send,
    ) -> Result<CallToolResult> {
        McpClient::from_connection(self)
            .call_tool_with_progress(name, arguments, opts, on_progress)
            .await
    }
}
