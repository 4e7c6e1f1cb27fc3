//! Codex approvals answered by their generic words (`codex_client_respond_decision`) and with
//! an exec-policy amendment (`codex_client_respond_execpolicy_amendment`), also by reference
//! (`codex_client_respond_ref_decision`); the core words the
//! answer for the request's method, so a program never spells the protocol's.

use std::ffi::c_char;

use crate::connection::client::codex_client_t;
use crate::connection::respond::request_of;
use crate::connection::server_request::codex_request_t;
use crate::error::{codex_status_t, invalid_arg};
use crate::strings::{req_str, req_strs};

ffi_fn! {
    /// Answer an approval request with a decision named by its generic word: `"accept"`,
    /// `"acceptForSession"`, `"decline"` or `"cancel"` (decline and interrupt the turn). The
    /// core words it for the request's method (`{"decision":"accept"}` for the v2 approvals,
    /// `{"decision":"approved"}` for the v1 ones), so a program never spells the protocol's
    /// answer.
    ///
    /// Returns `CODEX_STATUS_INVALID_ARGUMENT` for another word or a request that is not an
    /// approval (answer those with `codex_client_respond`), else as `codex_client_respond`.
    /// Ownership: borrows everything. Thread: any, including inside callbacks; now or later.
    /// ABI 1.7.
    unsafe fn codex_client_respond_decision(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        decision: *const c_char,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        let word = req_str(decision, "decision")?;
        let d = codex_client::Decision::parse(word).ok_or_else(|| {
            invalid_arg(format!(
                "unknown decision {word:?} (accept, acceptForSession, decline, cancel)"
            ))
        })?;
        if !codex_client::is_approval(&e.request.method) {
            return Err(invalid_arg(format!(
                "{} is not an approval request: answer it with codex_client_respond",
                e.request.method
            )));
        }
        e.request.respond_decision(d)?;
        Ok(())
    }
}

ffi_fn! {
    /// Approve a command approval and add an exec-policy rule that allows commands starting
    /// with the `prefix_len` words of `prefix` from now on (`prefix_len` 0: the amendment the
    /// server proposed, `proposedExecpolicyAmendment`). The core words the answer for the
    /// request's method (`acceptWithExecpolicyAmendment` for
    /// `item/commandExecution/requestApproval`, `approved_execpolicy_amendment` for the v1
    /// `execCommandApproval`), so a program never spells it.
    ///
    /// Returns `CODEX_STATUS_INVALID_ARGUMENT` for a request that is not a command approval,
    /// `prefix_len` 0 when the server proposed no amendment, or `prefix` NULL with a non-zero
    /// `prefix_len`; else as `codex_client_respond`. Ownership: borrows everything (`prefix`
    /// is only read during the call). Thread: any, including inside callbacks; now or later.
    /// ABI 1.10.
    unsafe fn codex_client_respond_execpolicy_amendment(
        client: *mut codex_client_t,
        request: *mut codex_request_t,
        prefix: *const *const c_char,
        prefix_len: usize,
    ) -> codex_status_t {
        let e = request_of(client, request)?;
        if prefix.is_null() && prefix_len > 0 {
            return Err(invalid_arg("prefix is NULL but prefix_len is not 0"));
        }
        let words: Vec<String> = req_strs(prefix, prefix_len, "prefix")?
            .into_iter()
            .map(str::to_owned)
            .collect();
        e.request.respond_execpolicy_amendment(&words)?;
        Ok(())
    }
}

ffi_fn! {
    /// Answer the approval a JSON reference names (see `codex_client_respond_ref`) with a
    /// decision by its generic word: `"accept"`, `"acceptForSession"`, `"decline"` or
    /// `"cancel"`, worded by the core for the request's method. Returns
    /// `CODEX_STATUS_INVALID_ARGUMENT` for another word or a request that is not an approval,
    /// else as `codex_client_respond_ref`. Ownership: borrows everything. Thread: any,
    /// including inside callbacks; now or later. ABI 1.11.
    unsafe fn codex_client_respond_ref_decision(
        client: *mut codex_client_t,
        ref_json: *const c_char,
        decision: *const c_char,
    ) -> codex_status_t {
        let s = crate::connection::client::shared(client)?;
        let r = codex_client::RequestRef::from_json(req_str(ref_json, "ref_json")?)?;
        let word = req_str(decision, "decision")?;
        let d = codex_client::Decision::parse(word).ok_or_else(|| {
            invalid_arg(format!(
                "unknown decision {word:?} (accept, acceptForSession, decline, cancel)"
            ))
        })?;
        if !codex_client::is_approval(&r.method) {
            return Err(invalid_arg(format!(
                "{} is not an approval request: answer it with codex_client_respond_ref",
                r.method
            )));
        }
        s.core().respond_ref_decision(&r, d)?;
        Ok(())
    }
}
