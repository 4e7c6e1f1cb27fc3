//! The Codex methods that used to be on [`Client`], kept for one minor version as
//! deprecated one-line forwards to [`CodexClient`].
#![allow(missing_docs)]

use crate::codex::account::Login;
use crate::codex::thread::Thread;
use crate::codex::typed::TypedRequest;
use crate::codex::CodexClient;
use crate::connection::Client;
use crate::error::Result;
use crate::options::RequestOptions;
use crate::protocol::{
    ClientMethod, CommandExecutionApprovalDecision, CommandExecutionRequestApprovalParams,
    FileChangeApprovalDecision, FileChangeRequestApprovalParams, ServerRequestMethod,
};
use serde_json::Value;

impl Client {
    /// Deprecated: moved to [`CodexClient::login_api_key`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_api_key")]
    pub async fn login_api_key(&self, api_key: &str) -> Result<()> {
        CodexClient::from_connection(self)
            .login_api_key(api_key)
            .await
    }

    /// Deprecated: moved to [`CodexClient::login_api_key_blocking`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_api_key_blocking")]
    pub fn login_api_key_blocking(&self, api_key: &str) -> Result<()> {
        CodexClient::from_connection(self).login_api_key_blocking(api_key)
    }

    /// Deprecated: moved to [`CodexClient::login_chatgpt`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_chatgpt")]
    pub async fn login_chatgpt(&self) -> Result<Login> {
        CodexClient::from_connection(self).login_chatgpt().await
    }

    /// Deprecated: moved to [`CodexClient::login_chatgpt_blocking`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_chatgpt_blocking")]
    pub fn login_chatgpt_blocking(&self) -> Result<Login> {
        CodexClient::from_connection(self).login_chatgpt_blocking()
    }

    /// Deprecated: moved to [`CodexClient::login_device_code`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_device_code")]
    pub async fn login_device_code(&self) -> Result<Login> {
        CodexClient::from_connection(self).login_device_code().await
    }

    /// Deprecated: moved to [`CodexClient::login_device_code_blocking`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::login_device_code_blocking")]
    pub fn login_device_code_blocking(&self) -> Result<Login> {
        CodexClient::from_connection(self).login_device_code_blocking()
    }

    /// Deprecated: moved to [`CodexClient::logout`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::logout")]
    pub async fn logout(&self) -> Result<()> {
        CodexClient::from_connection(self).logout().await
    }

    /// Deprecated: moved to [`CodexClient::logout_blocking`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::logout_blocking")]
    pub fn logout_blocking(&self) -> Result<()> {
        CodexClient::from_connection(self).logout_blocking()
    }

    /// Deprecated: moved to [`CodexClient::rate_limits`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::rate_limits")]
    pub async fn rate_limits(&self) -> Result<Value> {
        CodexClient::from_connection(self).rate_limits().await
    }

    /// Deprecated: moved to [`CodexClient::rate_limits_blocking`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::rate_limits_blocking")]
    pub fn rate_limits_blocking(&self) -> Result<Value> {
        CodexClient::from_connection(self).rate_limits_blocking()
    }

    /// Deprecated: moved to [`CodexClient::call`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::call")]
    pub fn call<M: ClientMethod>(&self, params: M::Params) -> Result<M::Response> {
        CodexClient::from_connection(self).call::<M>(params)
    }

    /// Deprecated: moved to [`CodexClient::call_with`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::call_with")]
    pub fn call_with<M: ClientMethod>(
        &self,
        params: M::Params,
        opts: RequestOptions,
    ) -> Result<M::Response> {
        CodexClient::from_connection(self).call_with::<M>(params, opts)
    }

    /// Deprecated: moved to [`CodexClient::call_async`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::call_async")]
    pub async fn call_async<M: ClientMethod>(&self, params: M::Params) -> Result<M::Response> {
        CodexClient::from_connection(self)
            .call_async::<M>(params)
            .await
    }

    /// Deprecated: moved to [`CodexClient::call_async_with`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::call_async_with")]
    pub async fn call_async_with<M: ClientMethod>(
        &self,
        params: M::Params,
        opts: RequestOptions,
    ) -> Result<M::Response> {
        CodexClient::from_connection(self)
            .call_async_with::<M>(params, opts)
            .await
    }

    /// Deprecated: moved to [`CodexClient::on_request`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::on_request")]
    pub fn on_request<M>(&self, f: impl Fn(TypedRequest<M>) + Send + Sync + 'static) -> Result<()>
    where
        M: ServerRequestMethod + 'static,
    {
        CodexClient::from_connection(self).on_request(f)
    }

    /// Deprecated: moved to [`CodexClient::on_thread_request`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::on_thread_request")]
    pub fn on_thread_request<M>(
        &self,
        thread_id: &str,
        f: impl Fn(TypedRequest<M>) + Send + Sync + 'static,
    ) -> Result<()>
    where
        M: ServerRequestMethod + 'static,
    {
        CodexClient::from_connection(self).on_thread_request(thread_id, f)
    }

    /// Deprecated: moved to [`CodexClient::clear_thread_handlers`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::clear_thread_handlers")]
    pub fn clear_thread_handlers(&self, thread_id: &str) {
        CodexClient::from_connection(self).clear_thread_handlers(thread_id)
    }

    /// Deprecated: moved to [`CodexClient::on_command_approval`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::on_command_approval")]
    pub fn on_command_approval(
        &self,
        f: impl Fn(&CommandExecutionRequestApprovalParams) -> CommandExecutionApprovalDecision
            + Send
            + Sync
            + 'static,
    ) -> Result<()> {
        CodexClient::from_connection(self).on_command_approval(f)
    }

    /// Deprecated: moved to [`CodexClient::on_file_change_approval`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::on_file_change_approval")]
    pub fn on_file_change_approval(
        &self,
        f: impl Fn(&FileChangeRequestApprovalParams) -> FileChangeApprovalDecision
            + Send
            + Sync
            + 'static,
    ) -> Result<()> {
        CodexClient::from_connection(self).on_file_change_approval(f)
    }

    /// Deprecated: moved to [`CodexClient::thread_start`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread_start")]
    pub fn thread_start(&self, params: Value) -> Result<Thread> {
        CodexClient::from_connection(self).thread_start(params)
    }

    /// Deprecated: moved to [`CodexClient::thread_start_async`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread_start_async")]
    pub async fn thread_start_async(&self, params: Value) -> Result<Thread> {
        CodexClient::from_connection(self)
            .thread_start_async(params)
            .await
    }

    /// Deprecated: moved to [`CodexClient::thread_resume`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread_resume")]
    pub fn thread_resume(&self, thread_id: &str, params: Value) -> Result<Thread> {
        CodexClient::from_connection(self).thread_resume(thread_id, params)
    }

    /// Deprecated: moved to [`CodexClient::thread_resume_async`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread_resume_async")]
    pub async fn thread_resume_async(&self, thread_id: &str, params: Value) -> Result<Thread> {
        CodexClient::from_connection(self)
            .thread_resume_async(thread_id, params)
            .await
    }

    /// Deprecated: moved to [`CodexClient::thread_fork`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread_fork")]
    pub fn thread_fork(&self, thread_id: &str, params: Value) -> Result<Thread> {
        CodexClient::from_connection(self).thread_fork(thread_id, params)
    }

    /// Deprecated: moved to [`CodexClient::config_batch_write`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::config_batch_write")]
    pub fn config_batch_write(&self, edits: Value, params: Value) -> Result<Value> {
        CodexClient::from_connection(self).config_batch_write(edits, params)
    }

    /// Deprecated: moved to [`CodexClient::mcp_server_status`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::mcp_server_status")]
    pub fn mcp_server_status(&self, params: Value) -> Result<Value> {
        CodexClient::from_connection(self).mcp_server_status(params)
    }

    /// Deprecated: moved to [`CodexClient::mcp_server_oauth_login`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::mcp_server_oauth_login")]
    pub fn mcp_server_oauth_login(&self, name: &str, params: Value) -> Result<Value> {
        CodexClient::from_connection(self).mcp_server_oauth_login(name, params)
    }

    /// Deprecated: moved to [`CodexClient::feedback_upload`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::feedback_upload")]
    pub fn feedback_upload(&self, classification: &str, params: Value) -> Result<Value> {
        CodexClient::from_connection(self).feedback_upload(classification, params)
    }

    /// Deprecated: moved to [`CodexClient::thread`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::thread")]
    pub fn thread(&self, thread_id: &str) -> Thread {
        CodexClient::from_connection(self).thread(thread_id)
    }

    /// Deprecated: moved to [`CodexClient::add_skill_source`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::add_skill_source")]
    pub fn add_skill_source(&self, label: &str, server: &Client) -> Result<()> {
        CodexClient::from_connection(self).add_skill_source(label, server)
    }

    /// Deprecated: moved to [`CodexClient::remove_skill_source`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::remove_skill_source")]
    pub fn remove_skill_source(&self, label: &str) -> bool {
        CodexClient::from_connection(self).remove_skill_source(label)
    }

    /// Deprecated: moved to [`CodexClient::skill_source_labels`].
    #[deprecated(since = "0.2.0", note = "use CodexClient::skill_source_labels")]
    pub fn skill_source_labels(&self) -> Vec<String> {
        CodexClient::from_connection(self).skill_source_labels()
    }
}
