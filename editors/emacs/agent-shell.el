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
                    :command "deep-acp"
                    :command-params '()
                    ;; Emacs's environment is passed on, so ANTHROPIC_API_KEY & co. reach the agent.
                    :environment-variables (agent-shell-make-environment-variables :inherit-env t)
                    :context-buffer buffer))
   ;; No default session mode: sessions start in the default one, and agent-shell set it a second time.
   :default-model-id (lambda () nil)))

(defun deep-acp-agent-shell--with-deep-acp (configs)
  "CONFIGS with deep-acp's configuration first, and no older one."
  (cons (deep-acp-agent-shell-config)
        (delq nil (mapcar (lambda (entry)
                            (unless (and (consp entry) (not (functionp entry))
                                         (eq (cdr (assq :identifier entry)) 'deep-acp))
                              entry))
                          configs))))

(defvar deep-acp-agent-shell--other-configs nil
  "The function `agent-shell-agent-configs' was before deep-acp joined it.")

(defun deep-acp-agent-shell--configs ()
  "What `deep-acp-agent-shell--other-configs' returns, with deep-acp."
  (deep-acp-agent-shell--with-deep-acp (funcall deep-acp-agent-shell--other-configs)))

;; `agent-shell-agent-configs' is a list of configurations or, in newer agent-shell, may be a
;; function returning one: deep-acp joins either, keeping every other agent.
(with-eval-after-load 'agent-shell
  (cond ((eq agent-shell-agent-configs #'deep-acp-agent-shell--configs))
        ((functionp agent-shell-agent-configs)
         (setq deep-acp-agent-shell--other-configs agent-shell-agent-configs
               agent-shell-agent-configs #'deep-acp-agent-shell--configs))
        (t (setq agent-shell-agent-configs
                 (deep-acp-agent-shell--with-deep-acp agent-shell-agent-configs)))))

(defun deep-acp-agent-shell ()
  "Start a new agent-shell with deep-acp."
  (interactive)
  (require 'agent-shell)
  (agent-shell-start :config (deep-acp-agent-shell-config)))
