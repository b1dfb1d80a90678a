;;; driver.el --- a user of agent-shell, headless  -*- lexical-binding: t; -*-
;;
;; `emacs --batch -l driver.el': loads acp.el, shell-maker and agent-shell from AS_ACP_DIR,
;; AS_SHELL_MAKER_DIR and AS_AGENT_SHELL_DIR, then the exact snippet `deep-acp setup emacs --print'
;; printed (AS_SNIPPET), starts a shell with the snippet's M-x deep-acp-agent-shell, types the
;; prompts below one by one, answers each permission dialog by pressing a key on the dialog's own
;; buttons (the keymaps agent-shell put on them), waits for each turn to end, and writes into
;; AS_OUT what the shell buffer shows (buffer.txt) and every JSON-RPC message acp.el saw
;; (traffic.jsonl). check.mjs judges the files.
(require 'map)
(require 'seq)
(require 'subr-x)

(defvar driver-out (or (getenv "AS_OUT") (error "AS_OUT is not set")))
(dolist (var '("AS_ACP_DIR" "AS_SHELL_MAKER_DIR" "AS_AGENT_SHELL_DIR"))
  (add-to-list 'load-path (or (getenv var) (error "%s is not set" var))))

(defvar driver-log nil)
(defun driver-say (fmt &rest args)
  (let ((line (apply #'format fmt args)))
    (push line driver-log)
    (message "%s" line)))

(defun driver-write (name text)
  (with-temp-file (expand-file-name name driver-out)
    (set-buffer-file-coding-system 'utf-8)
    (insert text)))

;; The prompts, and how the user answers the dialog each brings:
;; allow   presses y on the dialog (Allow);
;; reject  presses RET on its Reject button (agent-shell answers reject_once, then interrupts
;;         the turn itself: cancelled for any other open dialog, and session/cancel);
;; cancel  presses C-c C-c on the dialog (agent-shell-interrupt: answers the open dialog
;;         `cancelled', then sends session/cancel).
(defvar driver-prompts
  '(("Make a plan, then run the echo." . allow)
    ("Write the new note." . allow)
    ("Ask a helper to look around." . allow)
    ("Run a command; I will reject it." . reject)
    ("Run a command; I will refuse it." . cancel)
    ("Say goodbye." . allow)))

(defvar driver-answer 'allow "How the prompt being answered wants its dialogs answered.")
(defvar driver-dialogs 0)
(defvar driver-turns 0)
(defvar driver-traffic nil "Every JSON-RPC message, newest first, as (DIRECTION . JSON).")

(require 'agent-shell)
(load (or (getenv "AS_SNIPPET") (error "AS_SNIPPET is not set")) nil t)

;; Record what acp.el sends and receives (its own traffic hook, whether or not its log is on).
(advice-add 'acp--log-traffic :before
            (lambda (_client direction kind message)
              (push (list direction kind
                          (or (map-elt message :json)
                              (json-encode (map-elt message :object))))
                    driver-traffic)))

(defun driver-buttons (buffer)
  "The permission buttons shown in BUFFER: (POSITION TEXT KEYMAP), first to last.
TEXT is what the button reads (\"[ Allow (y) ]\"): the span its own keymap covers."
  (with-current-buffer buffer
    (let (buttons (pos (point-min)))
      (while (setq pos (next-single-property-change pos 'agent-shell-permission-button))
        (when (get-text-property pos 'agent-shell-permission-button)
          (let ((start (or (previous-single-property-change (1+ pos) 'keymap) (point-min)))
                (end (or (next-single-property-change pos 'keymap) (point-max))))
            (push (list pos (string-trim (buffer-substring-no-properties start end))
                        (get-text-property pos 'keymap))
                  buttons))))
      (nreverse buttons))))

(defun driver-press (buffer)
  "Answer the dialog shown in BUFFER as `driver-answer' says, with the dialog's own keys."
  (let* ((buttons (driver-buttons buffer))
         (allow (seq-find (lambda (b) (string-match-p "(y)" (or (nth 1 b) ""))) buttons))
         (reject (seq-find (lambda (b) (string-match-p "Reject" (or (nth 1 b) ""))) buttons))
         (button (pcase driver-answer ('allow allow) ('reject reject) (_ (or allow reject))))
         (key (pcase driver-answer ('allow "y") ('reject "RET") (_ "C-c C-c")))
         (command (and button (lookup-key (nth 2 button) (kbd key)))))
    (driver-say "dialog %d: %s on [%s] (buttons: %s)%s" driver-dialogs key (and button (nth 1 button))
                (mapconcat (lambda (b) (or (nth 1 b) "?")) buttons ", ")
                (if (commandp command) "" " -- NO SUCH KEY"))
    (when (commandp command)
      (with-current-buffer buffer
        (goto-char (nth 0 button))
        (call-interactively command)))))

(defun driver-wait (what seconds done)
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall done)) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    (or (funcall done)
        (progn (driver-say "timed out after %ss waiting for %s" seconds what) nil))))

(defun driver-run ()
  (let ((buffer (deep-acp-agent-shell)))
    (unless (bufferp buffer)
      (setq buffer (seq-find (lambda (b) (with-current-buffer b (derived-mode-p 'agent-shell-mode)))
                             (buffer-list))))
    (driver-say "shell buffer: %s (agent-shell %s)" buffer agent-shell--version)
    (agent-shell-subscribe-to
     :shell-buffer buffer :event 'permission-request
     :on-event (lambda (_event)
                 (setq driver-dialogs (1+ driver-dialogs))
                 ;; The dialog is drawn right after this event: answer on the next tick.
                 (run-at-time 0.2 nil #'driver-press buffer)))
    (agent-shell-subscribe-to
     :shell-buffer buffer :event 'turn-complete
     :on-event (lambda (_event) (setq driver-turns (1+ driver-turns))))
    ;; agent-shell 0.48 starts the agent and opens its session with the first prompt.
    (driver-wait "the shell's prompt" 30
                 (lambda () (with-current-buffer buffer (not (shell-maker-busy)))))
    (let ((index 0))
      (dolist (prompt driver-prompts)
        (setq index (1+ index) driver-answer (cdr prompt))
        (let ((before driver-turns))
          (driver-say "prompt %d: %s (%s)" index (car prompt) (cdr prompt))
          (agent-shell-insert :text (car prompt) :submit t :no-focus t :shell-buffer buffer)
          (let ((ended (driver-wait (format "the end of prompt %d" index) 90
                                    (lambda () (and (> driver-turns before)
                                                    (with-current-buffer buffer (not (shell-maker-busy))))))))
            ;; Late updates (a cancelled call's final status) land after the turn's answer.
            (let ((until (+ (float-time) 1.5)))
              (while (< (float-time) until) (accept-process-output nil 0.1)))
            (driver-say "prompt %d %s" index (if ended "ended" "DID NOT END"))))))
    (driver-write "buffer.txt" (with-current-buffer buffer (buffer-substring-no-properties (point-min) (point-max))))
    (driver-write "traffic.jsonl"
                  (mapconcat (lambda (m) (json-encode `((direction . ,(symbol-name (nth 0 m)))
                                                         (kind . ,(symbol-name (nth 1 m)))
                                                         (json . ,(nth 2 m)))))
                             (reverse driver-traffic) "\n"))
    (driver-say "dialogs answered: %d, turns: %d" driver-dialogs driver-turns)
    (driver-write "driver.log" (string-join (reverse driver-log) "\n"))
    (with-current-buffer buffer (agent-shell--shutdown))))

(condition-case err
    (driver-run)
  (error (driver-say "driver failed: %S" err)
         (driver-write "driver.log" (string-join (reverse driver-log) "\n"))
         (when-let ((shell (seq-find (lambda (b) (with-current-buffer b (derived-mode-p 'agent-shell-mode)))
                                     (buffer-list))))
           (driver-write "buffer.txt" (with-current-buffer shell (buffer-string))))
         (kill-emacs 1)))
(kill-emacs 0)
