package queuey

// #include <queuey/queuey.h>
import "C"

// Properties are the AMQP message properties and headers that accompany an envelope's
// body on RabbitMQ.
type Properties struct {
	ContentType  string // "application/json"
	DeliveryMode uint8  // 2: persistent
	MessageID    string // the job id
	Type         string // the job type, cut to at most 255 bytes
	Priority     uint8
	Headers      []Header // x-attempt, x-deferrals, ... in the order queuey sends them
}

// Header is one AMQP header; Value is a uint32 or a string.
type Header struct {
	Name  string
	Value any
}

// Properties are the properties of an ordinary publish of the envelope.
func (e *Envelope) Properties() (Properties, error) {
	return e.properties(func(p *C.qy_envelope, out **C.qy_properties, err **C.qy_error) C.qy_status {
		return C.qy_envelope_properties(p, out, err)
	})
}

// DeadLetterProperties are the properties of a publish of the envelope to its
// dead-letter queue: those of Properties plus x-death-reason = reason,
// x-original-queue and x-attempts.
func (e *Envelope) DeadLetterProperties(reason string) (Properties, error) {
	var args cArgs
	defer args.free()
	cReason := args.str("reason", reason)
	if args.err != nil {
		return Properties{}, args.err
	}
	return e.properties(func(p *C.qy_envelope, out **C.qy_properties, err **C.qy_error) C.qy_status {
		return C.qy_envelope_dead_letter_properties(p, cReason, out, err)
	})
}

func (e *Envelope) properties(f func(p *C.qy_envelope, out **C.qy_properties, err **C.qy_error) C.qy_status) (Properties, error) {
	var props Properties
	err := e.h.use(func(p *C.qy_envelope) error {
		var cp *C.qy_properties
		if err := call(func(err **C.qy_error) C.qy_status { return f(p, &cp, err) }); err != nil {
			return err
		}
		defer C.qy_properties_free(cp)
		props = propertiesOf(cp)
		return nil
	})
	return props, err
}

func propertiesOf(p *C.qy_properties) Properties {
	props := Properties{
		ContentType:  C.GoString(C.qy_properties_content_type(p)),
		DeliveryMode: uint8(C.qy_properties_delivery_mode(p)),
		MessageID:    C.GoString(C.qy_properties_message_id(p)),
		Type:         C.GoString(C.qy_properties_type(p)),
		Priority:     uint8(C.qy_properties_priority(p)),
	}
	count := C.qy_properties_header_count(p)
	for i := C.size_t(0); i < count; i++ {
		h := Header{Name: C.GoString(C.qy_properties_header_name(p, i))}
		switch C.qy_properties_header_kind(p, i) {
		case C.QY_FIELD_U32:
			h.Value = uint32(C.qy_properties_header_u32(p, i))
		case C.QY_FIELD_STRING:
			h.Value = C.GoString(C.qy_properties_header_string(p, i))
		}
		props.Headers = append(props.Headers, h)
	}
	return props
}
