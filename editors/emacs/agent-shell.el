;;; deep-acp for agent-shell (https://github.com/xenodium/agent-shell)  -*- lexical-binding: t; -*-

;; Paste into your init file, or (load "/path/to/editors/emacs/agent-shell.el").
;; Do not put this folder on `load-path': the file name would shadow agent-shell itself.
;; Then M-x agent-shell and pick deep-acp, or M-x deep-acp-agent-shell.

(defun deep-acp-agent-shell-config ()
  "Return the agent-shell configuration that launches deep-acp."
  (agent-shell-make-agent-config
   :identifier 'deep-acp
   :mode-line-name "deep-acp"
   :buffer-name "deep-acp"
   :shell-prompt "deep-acp> "
   :shell-prompt-regexp "deep-acp> "
   :client-maker (lambda (buffer)
                   (agent-shell--make-acp-client
                    :command "npx"
                    :command-params '("-y" "deep-acp")
                    ;; Pass Emacs's environment through, so ANTHROPIC_API_KEY & co. reach the agent.
                    :environment-variables (agent-shell-make-environment-variables :inherit-env t)
                    :context-buffer buffer))
   :default-model-id (lambda () nil)
   :default-session-mode-id (lambda () "default")))

(with-eval-after-load 'agent-shell
  (add-to-list 'agent-shell-agent-configs (deep-acp-agent-shell-config)))

(defun deep-acp-agent-shell ()
  "Start a new deep-acp shell."
  (interactive)
  (require 'agent-shell)
  (agent-shell-start :config (deep-acp-agent-shell-config)))
