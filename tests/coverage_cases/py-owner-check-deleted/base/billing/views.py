def show_invoice(store, caller, invoice_id):
    invoice = store.get(invoice_id)
    if invoice.owner_id != caller.id:
        return None
    return invoice.render()
